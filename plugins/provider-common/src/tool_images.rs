//! Images that tool results returned, for APIs whose tool results carry only text: they go in one
//! user message right after the results, introduced by a note, so the model still sees them.

use serde::Serialize;
use tack_sdk::ProviderError;

use crate::body::Sink;
use crate::json::{self, Array, Items, Object};

/// The text before the images, saying where they came from.
pub const TOOL_IMAGES_NOTE: &str = "Images returned by the tool calls above:";

/// Writes the images gathered in `images` (each tool result's, in order) as one user message in
/// `array`, after `note` (the API's text part holding [`TOOL_IMAGES_NOTE`]), and empties
/// `images`. Nothing is written when there are none.
pub fn flush<S: Sink>(
    images: &mut Vec<&Items>,
    array: &mut Array<'_, S>,
    note: &impl Serialize,
) -> Result<(), ProviderError> {
    if images.is_empty() {
        return Ok(());
    }
    let mut message = Object::begin(array.item());
    let mut content = Array::begin(message.key("content")?);
    json::write(content.item(), note)?;
    for items in images.drain(..) {
        items.write_to(&mut content);
    }
    content.end();
    message.field("role", &"user")?;
    message.end();
    Ok(())
}
