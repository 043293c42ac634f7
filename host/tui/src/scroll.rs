//! Where the transcript view is. It follows the end of the conversation until the user scrolls
//! back; then it holds on a line of a block, so output streaming in below does not move it.
//! Scroll keys only record a distance: the next frame, which knows the width and so the
//! blocks' heights, moves the anchor.

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Scroll {
    /// The top line of the view as (block, line within the block) while scrolled back; `None`
    /// follows the end.
    pub anchor: Option<(usize, usize)>,
    /// Lines to move at the next frame (negative: up).
    pub pending: isize,
    /// Go to the very top at the next frame.
    pub to_top: bool,
}

impl Scroll {
    pub fn follow(&mut self) {
        *self = Scroll::default();
    }

    pub fn by(&mut self, lines: isize) {
        self.pending = self.pending.saturating_add(lines);
    }

    pub fn top(&mut self) {
        self.to_top = true;
        self.pending = 0;
    }

    pub fn is_back(&self) -> bool {
        self.anchor.is_some() || self.pending < 0 || self.to_top
    }

    /// Applies the pending move. `height(i)` is block `i`'s line count (laying it out if
    /// needed), `count` the number of blocks, `view` the view's height. Returns the anchor to
    /// draw from, `None` to draw the end.
    pub fn resolve(
        &mut self,
        count: usize,
        view: usize,
        mut height: impl FnMut(usize) -> usize,
    ) -> Option<(usize, usize)> {
        if count == 0 {
            self.follow();
            return None;
        }
        if self.to_top {
            self.anchor = Some((0, 0));
            self.to_top = false;
        }
        if let Some((i, off)) = self.anchor {
            if i >= count {
                self.follow();
                return None;
            }
            // The width may have changed, and with it the block's height.
            self.anchor = Some((i, off.min(height(i).saturating_sub(1))));
        }
        if self.pending != 0 {
            let (mut i, mut off) = match self.anchor {
                Some(anchor) => anchor,
                None => bottom_top(count, view, &mut height),
            };
            let distance = self.pending.unsigned_abs();
            if self.pending < 0 {
                let mut k = distance;
                loop {
                    if off >= k {
                        off -= k;
                        break;
                    }
                    k -= off;
                    off = 0;
                    if i == 0 {
                        break;
                    }
                    i -= 1;
                    off = height(i);
                }
            } else {
                let mut k = distance;
                while i < count {
                    let h = height(i);
                    if off + k < h {
                        off += k;
                        break;
                    }
                    k -= h - off;
                    i += 1;
                    off = 0;
                }
            }
            self.pending = 0;
            self.anchor = Some((i, off));
        }
        let (i, off) = self.anchor?;
        // Back at the end: follow again.
        let mut below = 0;
        for j in i..count {
            below += height(j) - if j == i { off.min(height(j)) } else { 0 };
            if below > view {
                return self.anchor;
            }
        }
        self.follow();
        None
    }
}

/// The top line of a view that shows the end.
fn bottom_top(
    count: usize,
    view: usize,
    height: &mut impl FnMut(usize) -> usize,
) -> (usize, usize) {
    let mut total = 0;
    for i in (0..count).rev() {
        total += height(i);
        if total >= view {
            return (i, total - view);
        }
    }
    (0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_its_line_and_follows_again_at_the_end() {
        let heights = [5usize, 5, 5, 5];
        let mut s = Scroll::default();
        assert_eq!(s.resolve(4, 4, |i| heights[i]), None);
        s.by(-3);
        // The end shows lines 16..20; three up is line 13: block 2, line 3.
        assert_eq!(s.resolve(4, 4, |i| heights[i]), Some((2, 3)));
        // A fifth block arriving below changes nothing.
        let grown = [5usize, 5, 5, 5, 9];
        assert_eq!(s.resolve(5, 4, |i| grown[i]), Some((2, 3)));
        s.by(-100);
        assert_eq!(s.resolve(5, 4, |i| grown[i]), Some((0, 0)));
        s.by(7);
        assert_eq!(s.resolve(5, 4, |i| grown[i]), Some((1, 2)));
        s.by(100);
        assert_eq!(s.resolve(5, 4, |i| grown[i]), None);
        assert!(!s.is_back());
    }
}
