//! A response body as something a model can read: HTML reduced to its main content in Markdown,
//! text as it is, binary bodies named by type and not read.

use dom_query::Document;
use dom_smoothie::{Readability, TextMode};
use url::Url;

pub enum Body {
    Text(Read),
    /// What the body is ("a PDF document"), for the refusal.
    Binary(String),
}

pub struct Read {
    pub title: Option<String>,
    pub markdown: String,
    /// Whether the readability pass found an article (else the whole body was converted).
    pub readable: bool,
}

/// Page furniture left out when a page is converted whole.
const FURNITURE: &[&str] = &[
    "script", "style", "meta", "head", "nav", "header", "footer", "aside", "noscript", "iframe",
    "form", "svg", "template", "button", "select", "dialog",
];

pub fn read(content_type: &str, body: &[u8], url: &Url) -> Body {
    let (mime, charset) = parse_content_type(content_type);
    match kind(&mime, body) {
        Kind::Html => {
            let text = decode(body, charset.or_else(|| meta_charset(body)).as_deref());
            Body::Text(html(&text, url))
        }
        Kind::Text => Body::Text(Read {
            title: None,
            markdown: tidy(&decode(body, charset.as_deref())),
            readable: false,
        }),
        Kind::Binary(what) => Body::Binary(what),
    }
}

enum Kind {
    Html,
    Text,
    Binary(String),
}

fn kind(mime: &str, body: &[u8]) -> Kind {
    let head = &body[..body.len().min(1024)];
    match mime {
        "text/html" | "application/xhtml+xml" => Kind::Html,
        "application/pdf" => Kind::Binary("a PDF document".into()),
        m if m.starts_with("image/") => Kind::Binary(format!("an image ({m})")),
        m if m.starts_with("audio/") => Kind::Binary(format!("audio ({m})")),
        m if m.starts_with("video/") => Kind::Binary(format!("a video ({m})")),
        m if m.starts_with("font/") => Kind::Binary(format!("a font ({m})")),
        m if is_textual(m) => Kind::Text,
        m if head.contains(&0) => Kind::Binary(if m.is_empty() {
            "binary data".into()
        } else {
            format!("binary data ({m})")
        }),
        _ if looks_like_html(head) => Kind::Html,
        _ => Kind::Text,
    }
}

fn is_textual(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-javascript"
                | "application/ecmascript"
                | "application/yaml"
                | "application/x-yaml"
                | "application/toml"
                | "application/x-sh"
                | "application/sql"
                | "application/graphql"
                | "application/x-ndjson"
        )
}

fn looks_like_html(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head).to_ascii_lowercase();
    let text = text.trim_start_matches('\u{feff}').trim_start();
    text.starts_with("<!doctype html") || text.starts_with("<html") || text.contains("<body")
}

/// The media type, lower case, and its `charset` parameter.
fn parse_content_type(value: &str) -> (String, Option<String>) {
    let mut parts = value.split(';');
    let mime = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
    let charset = parts.find_map(|p| {
        let (key, value) = p.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches(['"', '\'']).to_string())
    });
    (mime, charset)
}

/// `<meta charset="…">` or the `charset=` of an http-equiv, in the first bytes of a page.
fn meta_charset(body: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&body[..body.len().min(4096)]).to_ascii_lowercase();
    let at = head.find("charset=")? + "charset=".len();
    let value: String = head[at..]
        .trim_start_matches(['"', '\''])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
        .collect();
    (!value.is_empty()).then_some(value)
}

fn decode(body: &[u8], charset: Option<&str>) -> String {
    let declared = charset.and_then(|label| encoding_rs::Encoding::for_label(label.as_bytes()));
    // A byte-order mark beats a declaration, as browsers have it.
    let encoding = encoding_rs::Encoding::for_bom(body)
        .map(|(encoding, _)| encoding)
        .or(declared)
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _, _) = encoding.decode(body);
    text.into_owned()
}

fn html(text: &str, url: &Url) -> Read {
    let config = dom_smoothie::Config {
        text_mode: TextMode::Markdown,
        ..Default::default()
    };
    // Readability finds an article where there is one; a page that is mostly links (an index,
    // a listing) would come back as whatever block scored best, so it is converted whole.
    let article = Readability::new(text, Some(url.as_str()), Some(config)).and_then(|mut r| {
        if r.is_probably_readable() {
            r.parse().map(Some)
        } else {
            Ok(None)
        }
    });
    if let Ok(Some(article)) = article {
        let markdown = tidy(&article.text_content);
        if !markdown.trim().is_empty() {
            return Read {
                title: one_line(&article.title),
                markdown,
                readable: true,
            };
        }
    }
    let document = Document::from(text);
    let title = one_line(&document.select("title").text());
    let body = document.select("body");
    let markdown = match body.nodes().first() {
        Some(node) => node.md(Some(FURNITURE)),
        None => document.md(Some(FURNITURE)),
    };
    Read {
        title,
        markdown: tidy(&markdown),
        readable: false,
    }
}

/// A title on one line, without control characters; `None` when nothing is left.
fn one_line(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Control characters out (a page must not drive the terminal it is shown on), runs of blank
/// lines and trailing spaces folded.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_lines = 0;
    for line in text.lines() {
        let line: String = line
            .chars()
            .filter(|c| !c.is_control() || *c == '\t')
            .collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank_lines += 1;
            if blank_lines > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank_lines = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

/// `1.2 MB`, `34 KB`, `512 bytes`.
pub fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{:.1} MB", b as f64 / f64::from(1 << 20)),
        b if b >= 1 << 10 => format!("{} KB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url() -> Url {
        Url::parse("https://docs.example.com/guide").unwrap_or_else(|e| panic!("{e}"))
    }

    fn text(body: Body) -> Read {
        match body {
            Body::Text(read) => read,
            Body::Binary(what) => panic!("read as binary: {what}"),
        }
    }

    #[test]
    fn binary_bodies_are_named_not_read() {
        for (content_type, body, says) in [
            ("application/pdf", &b"%PDF-1.7"[..], "a PDF document"),
            ("image/png", &b"\x89PNG"[..], "an image (image/png)"),
            (
                "application/octet-stream",
                &b"\x00\x01\x02"[..],
                "binary data",
            ),
        ] {
            match read(content_type, body, &url()) {
                Body::Binary(what) => assert!(what.contains(says), "{what}"),
                Body::Text(_) => panic!("{content_type} read as text"),
            }
        }
    }

    #[test]
    fn text_comes_back_as_it_is_without_control_characters() {
        let plain = text(read(
            "text/plain; charset=utf-8",
            b"line one\x1b]52;c;aGk=\x07\n\n\n\nline two",
            &url(),
        ));
        assert_eq!(plain.markdown, "line one]52;c;aGk=\n\nline two");
    }

    #[test]
    fn a_declared_charset_is_decoded() {
        let latin = text(read("text/plain; charset=ISO-8859-1", b"caf\xe9", &url()));
        assert_eq!(latin.markdown, "café");
        let page = b"<html><head><meta charset=\"windows-1252\"><title>Caf\xe9</title></head>\
                     <body><p>Men\xfc</p></body></html>";
        let windows = text(read("text/html", page, &url()));
        assert!(windows.markdown.contains("Menü"), "{}", windows.markdown);
    }

    #[test]
    fn a_page_that_is_no_article_is_converted_whole_without_its_furniture() {
        let page = "<html><head><title>Index</title><script>track()</script></head><body>\
                    <nav><a href=\"/\">Home</a></nav><ul><li><a href=\"/a\">A</a></li></ul>\
                    <footer>© someone</footer></body></html>";
        let index = text(read("text/html", page.as_bytes(), &url()));
        assert_eq!(index.title.as_deref(), Some("Index"));
        assert!(!index.markdown.contains("track()"), "{}", index.markdown);
        assert!(!index.markdown.contains("Home"), "{}", index.markdown);
        assert!(!index.markdown.contains("someone"), "{}", index.markdown);
        assert!(index.markdown.contains("[A]"), "{}", index.markdown);
    }

    #[test]
    fn an_article_keeps_its_text_and_loses_the_site_around_it() {
        let page = include_str!("../../../host/cli/tests/web/article.html");
        let article = text(read("text/html; charset=utf-8", page.as_bytes(), &url()));
        assert!(article.readable);
        for gone in [
            "BUY CHEAP",
            "Advertisement",
            "Popular posts",
            "All rights reserved",
            "Subscribe",
            "track(",
        ] {
            assert!(
                !article.markdown.contains(gone),
                "{gone} kept:\n{}",
                article.markdown
            );
        }
        for kept in [
            "## Shared and mutable references",
            "`&mut T`",
            "fn longest",
            "- One owner per value.",
        ] {
            assert!(
                article.markdown.contains(kept),
                "{kept} lost:\n{}",
                article.markdown
            );
        }
    }
}
