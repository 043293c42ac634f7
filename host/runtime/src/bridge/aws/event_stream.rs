//! AWS's binary event stream (`application/vnd.amazon.eventstream`, framed and checksummed by
//! `aws-smithy-eventstream`) as the events a provider plugin's decoder takes: each message's
//! `:event-type` (or, for an error, its `:exception-type`) is the event's name and its JSON
//! payload the data. A message of type `exception` or `error` is named `exception:<type>`, so
//! no event of the model's can pass for one.

use aws_smithy_eventstream::frame::{DecodedFrame, MessageFrameDecoder};
use bytes::BytesMut;

use crate::api;

/// Largest message held while it arrives; Bedrock's are a few KiB.
const MAX_MESSAGE: usize = 16 << 20;

/// Frames a body's chunks into events as they arrive.
#[derive(Default)]
pub(crate) struct EventStreamFrames {
    decoder: MessageFrameDecoder,
    buffer: BytesMut,
    /// The decoder holds the prelude of a message whose rest has not come.
    prelude_held: bool,
}

impl EventStreamFrames {
    /// The whole events `chunk` completes, in order; an error names a broken frame.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<api::SseEvent>, String> {
        self.buffer.extend_from_slice(chunk);
        let mut events = Vec::new();
        loop {
            let before = self.buffer.len();
            match self.decoder.decode_frame(&mut self.buffer) {
                Ok(DecodedFrame::Complete(message)) => {
                    self.prelude_held = false;
                    let header = |name: &str| {
                        message
                            .headers()
                            .iter()
                            .find(|h| h.name().as_str() == name)
                            .and_then(|h| h.value().as_string().ok())
                            .map(|s| s.as_str().to_string())
                    };
                    let event = match header(":message-type").as_deref() {
                        Some("exception") => format!(
                            "exception:{}",
                            header(":exception-type").unwrap_or_default()
                        ),
                        Some("error") => {
                            format!("exception:{}", header(":error-code").unwrap_or_default())
                        }
                        _ => header(":event-type").unwrap_or_default(),
                    };
                    let data = match header(":message-type").as_deref() {
                        Some("error") => serde_json::json!({
                            "message": header(":error-message").unwrap_or_default()
                        })
                        .to_string(),
                        _ => String::from_utf8_lossy(message.payload()).into_owned(),
                    };
                    events.push(api::SseEvent { event, data });
                }
                Ok(DecodedFrame::Incomplete) => {
                    // The decoder takes a message's prelude out of the buffer as soon as it has
                    // one.
                    self.prelude_held |= self.buffer.len() < before;
                    break;
                }
                Err(e) => return Err(format!("a broken AWS event-stream frame: {e}")),
            }
        }
        if self.buffer.len() > MAX_MESSAGE {
            return Err(format!(
                "an AWS event-stream message longer than {} MiB",
                MAX_MESSAGE >> 20
            ));
        }
        Ok(events)
    }

    /// Whether a message was cut off by the end of the body.
    pub fn unfinished(&self) -> bool {
        self.prelude_held || !self.buffer.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One message as AWS frames it: prelude (lengths and their CRC), string headers, payload,
    /// the message's CRC.
    fn frame(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
        let mut head = Vec::new();
        for (name, value) in headers {
            head.push(name.len() as u8);
            head.extend_from_slice(name.as_bytes());
            head.push(7);
            head.extend_from_slice(&(value.len() as u16).to_be_bytes());
            head.extend_from_slice(value.as_bytes());
        }
        let total = (12 + head.len() + payload.len() + 4) as u32;
        let mut out = Vec::new();
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&(head.len() as u32).to_be_bytes());
        let prelude_crc = crc32fast::hash(&out);
        out.extend_from_slice(&prelude_crc.to_be_bytes());
        out.extend_from_slice(&head);
        out.extend_from_slice(payload);
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    #[test]
    fn messages_split_anywhere_come_out_whole_and_exceptions_are_marked() {
        let mut body = frame(
            &[(":message-type", "event"), (":event-type", "messageStart")],
            br#"{"role":"assistant"}"#,
        );
        body.extend(frame(
            &[
                (":message-type", "exception"),
                (":exception-type", "throttlingException"),
            ],
            br#"{"message":"slow down"}"#,
        ));
        for split in 0..body.len() {
            let mut frames = EventStreamFrames::default();
            let mut events = frames.push(&body[..split]).expect("first part");
            events.extend(frames.push(&body[split..]).expect("second part"));
            assert!(!frames.unfinished());
            assert_eq!(events.len(), 2, "split at {split}");
            assert_eq!(events[0].event, "messageStart");
            assert_eq!(events[0].data, r#"{"role":"assistant"}"#);
            assert_eq!(events[1].event, "exception:throttlingException");
        }
        // A body cut right after a message's prelude is cut short too.
        let mut frames = EventStreamFrames::default();
        frames.push(&body[..12]).expect("a prelude");
        assert!(frames.unfinished());

        let mut corrupt = body.clone();
        corrupt[20] ^= 0xff;
        let mut frames = EventStreamFrames::default();
        assert!(frames
            .push(&corrupt)
            .unwrap_err()
            .contains("broken AWS event-stream frame"));
    }
}
