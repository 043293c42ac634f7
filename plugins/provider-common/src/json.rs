//! Writing a request body piece by piece: fields serialized from typed values, and arrays whose
//! items are already JSON (a conversation's converted messages, kept from earlier turns).

use serde::Serialize;
use tack_sdk::{ErrorKind, ProviderError};

use crate::body::{Sink, Spot};

/// Appends `value` as JSON.
pub fn write(out: &mut impl Sink, value: &impl Serialize) -> Result<(), ProviderError> {
    serde_json::to_writer(out, value).map_err(|e| {
        ProviderError::new(
            ErrorKind::InvalidRequest,
            format!("cannot encode the request: {e}"),
        )
    })
}

/// `value` as JSON.
pub fn to_vec(value: &impl Serialize) -> Result<Vec<u8>, ProviderError> {
    let mut out = Vec::new();
    write(&mut out, value)?;
    Ok(out)
}

/// A JSON object being written; fields come out in the order they are added.
pub struct Object<'a, S: Sink = Vec<u8>> {
    out: &'a mut S,
    first: bool,
}

impl<'a, S: Sink> Object<'a, S> {
    pub fn begin(out: &'a mut S) -> Self {
        out.put(b"{");
        Object { out, first: true }
    }

    pub fn field(&mut self, name: &str, value: &impl Serialize) -> Result<(), ProviderError> {
        write(self.key(name)?, value)
    }

    /// Starts a field whose value the caller writes, as JSON, into the returned buffer.
    pub fn key(&mut self, name: &str) -> Result<&mut S, ProviderError> {
        if !self.first {
            self.out.put(b",");
        }
        self.first = false;
        write(self.out, &name)?;
        self.out.put(b":");
        Ok(self.out)
    }

    pub fn end(self) {
        self.out.put(b"}");
    }
}

/// A JSON array being written from items that are JSON already.
pub struct Array<'a, S: Sink = Vec<u8>> {
    out: &'a mut S,
    first: bool,
}

impl<'a, S: Sink> Array<'a, S> {
    pub fn begin(out: &'a mut S) -> Self {
        out.put(b"[");
        Array { out, first: true }
    }

    /// Adds an item written as JSON elsewhere.
    pub fn raw(&mut self, item: &[u8]) {
        self.item().put(item);
    }

    /// Adds a cached message's item, which `spot` places in the previous body.
    pub fn fragment(&mut self, item: &[u8], spot: &Spot) {
        let separator = (!self.first).then_some(b',');
        self.first = false;
        self.out.fragment(separator, item, spot);
    }

    /// Starts an item the caller writes, as JSON, into the returned buffer.
    pub fn item(&mut self) -> &mut S {
        if !self.first {
            self.out.put(b",");
        }
        self.first = false;
        self.out
    }

    pub fn end(self) {
        self.out.put(b"]");
    }
}

/// Items written one after another, comma-separated, for joining into an array later (the
/// parts one message contributes to an array shared with other messages).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Items {
    bytes: Vec<u8>,
    count: usize,
}

impl Items {
    pub fn push(&mut self, value: &impl Serialize) -> Result<(), ProviderError> {
        if self.count > 0 {
            self.bytes.push(b',');
        }
        self.count += 1;
        write(&mut self.bytes, value)
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn len(&self) -> usize {
        self.count
    }

    /// The items' text, comma-separated.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The length of the items' text.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// Adds these items, cached where `spot` says, to `array`.
    pub fn fragment_to<S: Sink>(&self, array: &mut Array<'_, S>, spot: &Spot) {
        if self.count > 0 {
            array.fragment(&self.bytes, spot);
        }
    }

    /// Adds these items to `array`.
    pub fn write_to<S: Sink>(&self, array: &mut Array<'_, S>) {
        if self.count > 0 {
            array.raw(&self.bytes);
        }
    }
}

/// An image as a `data:` URL, written straight into the JSON string.
pub struct DataUrl<'a> {
    pub mime_type: &'a str,
    /// Base64.
    pub data: &'a str,
}

impl Serialize for DataUrl<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!(
            "data:{};base64,{}",
            self.mime_type, self.data
        ))
    }
}

/// Room for a request body: the converted messages' bytes, the tool definitions and the system
/// prompt as the host sent them (escaping may double a text), and the fixed fields. A body that
/// outgrew its buffer was copied whole when the buffer grew, and the tool definitions alone are
/// larger than a fixed margin: at turn 800 that was a megabyte copied every turn.
pub fn body_capacity(messages: usize, tools: &[tack_sdk::ToolSpec], system_prompt: &str) -> usize {
    let tools: usize = tools
        .iter()
        .map(|tool| tool.name.len() + 2 * tool.description.len() + tool.parameters.len() + 64)
        .sum();
    messages + tools + 2 * system_prompt.len() + 4096
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pieces_make_the_same_text_as_a_value() {
        let mut items = Items::default();
        items.push(&json!({"a": 1})).unwrap();
        items.push(&"x").unwrap();
        let mut out = Vec::new();
        let mut object = Object::begin(&mut out);
        object.field("m\"", &3).unwrap();
        let mut array = Array::begin(object.key("list").unwrap());
        array.raw(b"true");
        items.write_to(&mut array);
        Items::default().write_to(&mut array);
        array.end();
        object.end();
        let url = DataUrl {
            mime_type: "image/png",
            data: "aGk=",
        };
        assert_eq!(to_vec(&url).unwrap(), br#""data:image/png;base64,aGk=""#);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"m\"":3,"list":[true,{"a":1},"x"]}"#
        );
    }
}
