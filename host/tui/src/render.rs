//! Turning transcript blocks into terminal lines: markdown, code highlighting, tool cards,
//! diffs, and word wrapping to the view's width. Every function returns lines already wrapped,
//! so a block's height is the number of its lines and the view can skip what is off screen.

pub mod blocks;
pub(crate) mod count;
pub mod highlight;
pub mod image;
pub mod markdown;
pub mod styled;
mod subagent;
pub mod wrap;
