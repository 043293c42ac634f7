//! Images in the transcript (attached by the user, returned by tools) drawn as thumbnails of
//! coloured half blocks: each cell shows two pixels, `▀` in the upper one's colour over the
//! lower one's. It works in every terminal that has 24-bit colour, tmux and SSH included, where
//! the kitty and iTerm2 image protocols do not.

use std::io::Cursor;

use base64::Engine as _;
use image::{ImageReader, Limits};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use tack_core::message::ImageContent;

use crate::theme::Theme;

/// Widest thumbnail, in cells.
const MAX_COLUMNS: u32 = 48;
/// Tallest thumbnail, in pixels (two per cell row).
const MAX_PIXEL_ROWS: u32 = 40;
/// Images come from tools, which plugins provide: a small file declaring a huge picture must
/// not make the UI allocate gigabytes.
const MAX_DIMENSION: u32 = 16_384;
const MAX_DECODE_BYTES: u64 = 256 * 1024 * 1024;
/// The media type in the label is the tool's word for it: shown, but not at any length.
const MAX_TYPE_CHARS: usize = 40;

/// An image reduced to what the transcript draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Thumbnail {
    /// `image/png 640×480`, or why it cannot be shown.
    pub label: String,
    /// Columns of the pixel grid.
    pub width: u32,
    /// Row-major RGB pixels; an even number of rows (`2 × cell rows`). Empty when the image
    /// could not be decoded.
    pub pixels: Vec<[u8; 3]>,
}

impl Thumbnail {
    pub fn new(image: &ImageContent) -> Thumbnail {
        match decode(image) {
            Ok(thumbnail) => thumbnail,
            Err(reason) => Thumbnail {
                label: format!("{} ({reason})", shown_type(image)),
                width: 0,
                pixels: Vec::new(),
            },
        }
    }

    /// Cell rows the picture takes.
    fn rows(&self) -> usize {
        match self.width {
            0 => 0,
            w => self.pixels.len() / (2 * w as usize),
        }
    }

    /// The thumbnail's lines, each starting with `indent`, at most `width` columns wide (the
    /// picture is sampled down to fit); only the label when colours are off (`NO_COLOR`), the
    /// picture is not wanted, or it could not be decoded.
    pub fn lines(
        &self,
        indent: &str,
        theme: &Theme,
        picture: bool,
        width: usize,
    ) -> Vec<Line<'static>> {
        let mut out = vec![Line::from(vec![
            Span::raw(indent.to_string()),
            Span::styled(format!("▣ {}", self.label), theme.dim()),
        ])];
        let room = width.saturating_sub(indent.chars().count());
        if !picture || !theme.color || self.rows() == 0 || room == 0 {
            return out;
        }
        let source_width = self.width as usize;
        let source_height = 2 * self.rows();
        // Nearest-neighbour sampling keeps the aspect ratio when the view is narrower.
        let columns = source_width.min(room);
        let pixel_rows = (source_height * columns / source_width).max(2) & !1;
        let at = |x: usize, y: usize| {
            let sx = x * source_width / columns;
            let sy = (y * source_height / pixel_rows).min(source_height - 1);
            self.pixels[sy * source_width + sx]
        };
        for row in 0..pixel_rows / 2 {
            let mut spans = vec![Span::raw(indent.to_string())];
            spans.extend((0..columns).map(|x| {
                let (u, l) = (at(x, 2 * row), at(x, 2 * row + 1));
                Span::styled(
                    "▀",
                    Style::new()
                        .fg(Color::Rgb(u[0], u[1], u[2]))
                        .bg(Color::Rgb(l[0], l[1], l[2])),
                )
            }));
            out.push(Line::from(spans));
        }
        out
    }
}

fn shown_type(image: &ImageContent) -> String {
    image.mime_type.chars().take(MAX_TYPE_CHARS).collect()
}

fn decode(image: &ImageContent) -> Result<Thumbnail, String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(image.data.as_bytes())
        .map_err(|_| "not base64".to_string())?;
    let mut reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_DIMENSION);
    limits.max_image_height = Some(MAX_DIMENSION);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let decoded = reader
        .decode()
        .map_err(|e| format!("cannot show it: {e}"))?;
    let (full_width, full_height) = (decoded.width(), decoded.height());
    // Small pictures stay as they are: blown up they would only be blurred.
    let small = if full_width <= MAX_COLUMNS && full_height <= MAX_PIXEL_ROWS {
        decoded.to_rgb8()
    } else {
        decoded.thumbnail(MAX_COLUMNS, MAX_PIXEL_ROWS).to_rgb8()
    };
    let width = small.width().max(1);
    let mut pixels: Vec<[u8; 3]> = small.pixels().map(|p| p.0).collect();
    // An odd last row gets a blank partner so every cell has two pixels.
    if (pixels.len() / width as usize) % 2 == 1 {
        pixels.extend(std::iter::repeat_n([0, 0, 0], width as usize));
    }
    Ok(Thumbnail {
        label: format!("{} {full_width}×{full_height}", shown_type(image)),
        width,
        pixels,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn png(width: u32, height: u32) -> ImageContent {
        let mut bytes = Vec::new();
        let picture = image::RgbImage::from_fn(width, height, |x, _| {
            if x < width / 2 {
                image::Rgb([255, 0, 0])
            } else {
                image::Rgb([0, 0, 255])
            }
        });
        picture
            .write_to(&mut Cursor::new(&mut bytes), image::ImageFormat::Png)
            .unwrap();
        ImageContent {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: "image/png".into(),
        }
    }

    #[test]
    fn a_picture_becomes_half_block_cells_within_the_bounds() {
        let thumb = Thumbnail::new(&png(400, 100));
        assert_eq!(thumb.label, "image/png 400×100");
        assert_eq!(thumb.width, MAX_COLUMNS);
        let lines = thumb.lines("  ", &Theme::colored(), true, 80);
        // One label line and 12 px / 2 rows of cells.
        assert_eq!(lines.len(), 1 + 6);
        assert_eq!(lines[1].spans.len(), 1 + 48);
        let first = &lines[1].spans[1];
        assert_eq!(first.content, "▀");
        assert_eq!(first.style.fg, Some(Color::Rgb(255, 0, 0)));
        let last = lines[1].spans.last().unwrap();
        assert_eq!(last.style.fg, Some(Color::Rgb(0, 0, 255)));

        // In 26 columns: 24 cells wide, half as tall, still red then blue.
        let narrow = thumb.lines("  ", &Theme::colored(), true, 26);
        assert_eq!(narrow.len(), 1 + 3);
        assert_eq!(narrow[1].spans.len(), 1 + 24);
        assert_eq!(narrow[1].spans[1].style.fg, Some(Color::Rgb(255, 0, 0)));
        assert_eq!(
            narrow[1].spans.last().unwrap().style.fg,
            Some(Color::Rgb(0, 0, 255))
        );
    }

    #[test]
    fn without_colour_or_when_hidden_only_the_label_shows() {
        let thumb = Thumbnail::new(&png(10, 10));
        assert_eq!(thumb.lines("", &Theme::plain(), true, 80).len(), 1);
        assert_eq!(thumb.lines("", &Theme::colored(), false, 80).len(), 1);
        // Small pictures keep their size.
        assert_eq!(thumb.width, 10);
        assert_eq!(thumb.lines("", &Theme::colored(), true, 80).len(), 1 + 5);
    }

    /// A PNG header declaring a 100000×100000 picture is refused before any pixel buffer is
    /// allocated: the label says why and nothing is drawn.
    #[test]
    fn a_declared_giant_is_refused_not_allocated() {
        let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        bytes.extend(100_000u32.to_be_bytes());
        bytes.extend(100_000u32.to_be_bytes());
        bytes.extend([8, 2, 0, 0, 0]);
        let crc = crc32(&bytes[12..]);
        bytes.extend(crc.to_be_bytes());
        let thumb = Thumbnail::new(&ImageContent {
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type: "image/png".into(),
        });
        assert!(thumb.pixels.is_empty());
        assert!(thumb.label.contains("cannot show it"), "{}", thumb.label);
    }

    #[test]
    fn a_long_media_type_is_cut() {
        let thumb = Thumbnail::new(&ImageContent {
            data: "bm90IGFuIGltYWdl".into(),
            mime_type: "x".repeat(10_000),
        });
        assert!(thumb.label.starts_with(&"x".repeat(MAX_TYPE_CHARS)));
        assert!(thumb.label.len() < 200, "{}", thumb.label.len());
    }

    #[test]
    fn garbage_says_so() {
        let thumb = Thumbnail::new(&ImageContent {
            data: "bm90IGFuIGltYWdl".into(),
            mime_type: "image/png".into(),
        });
        assert!(thumb.pixels.is_empty());
        assert!(thumb.label.starts_with("image/png ("), "{}", thumb.label);
    }

    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
}
