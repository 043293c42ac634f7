//! The request body, written over the previous one (`tack:provider@0.1.0`).
//!
//! At turn 800 a body is a megabyte, and all but its last few kilobytes are the body of the turn
//! before: the same header, then the same converted messages. Copying them into a new body and
//! that body out of the guest again was most of what a late turn cost. [`Body`] keeps the
//! previous body, and while the new one is written it only checks that each write repeats what
//! is already there; from the first write that does not, it writes. The host holds the previous
//! body too, so the guest returns only what follows the unchanged prefix, and says how long
//! that prefix is.
//!
//! Checking is cheap for a cached message: each keeps a [`Spot`], where it was written in the
//! previous body, so a message written again at the same place is known to be there without
//! comparing its bytes. Anything else (punctuation, fields, messages without a spot) is compared.

use std::cell::Cell;

/// Where a cached fragment was written, in which body, after which separator and how long it
/// was: a fragment written at the same place after the same separator in the very next body
/// repeats its bytes there. (A spot belongs to one fragment, whose bytes do not change; one
/// that names a few fixed pieces, such as a turn's opening, tells them apart by length.)
#[derive(Clone, Debug, Default)]
pub struct Spot(Cell<(u64, usize, Option<u8>, usize)>);

/// Where JSON is written: a plain buffer (a message's fragment), or a [`Body`].
pub trait Sink: std::io::Write {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends `separator` (a comma between array items) and a cached fragment, whose `spot`
    /// says where they were written last.
    fn fragment(&mut self, separator: Option<u8>, bytes: &[u8], spot: &Spot) {
        let _ = spot;
        if let Some(separator) = separator {
            self.put(&[separator]);
        }
        self.put(bytes);
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A request body, kept from one request to the next.
#[derive(Clone, Debug, Default)]
pub struct Body {
    /// The body being written: the previous one up to `at` while `repeating`.
    bytes: Vec<u8>,
    /// Which body this is (spots written in the one before hold `generation - 1`).
    generation: u64,
    /// The last body was written whole (no failure stopped it halfway).
    complete: bool,
    /// The host holds the previous body, so the next may repeat a prefix of it.
    held: bool,
    /// While true, every write so far repeated the previous body, up to `at`.
    repeating: bool,
    at: usize,
    /// How much of the latest body repeats the previous one.
    prefix: usize,
}

impl Body {
    /// Told by the host, before a request: the length of this instance's previous body it
    /// holds (0 for none). The next body may leave out a prefix of it only if it is ours.
    pub fn expect_held(&mut self, held: u64) {
        self.held = self.complete && held > 0 && held == self.bytes.len() as u64;
    }

    /// Starts the next body; `capacity` is room for a body written whole.
    pub fn begin(&mut self, capacity: usize) -> &mut Self {
        self.generation += 1;
        self.complete = false;
        self.repeating = std::mem::take(&mut self.held);
        self.at = 0;
        self.prefix = 0;
        if !self.repeating {
            self.bytes.clear();
            self.bytes.reserve(capacity);
        }
        self
    }

    /// Ends the body: the bytes after the prefix it repeats, which the host appends to that
    /// prefix of the body it holds. [`prefix`](Self::prefix) says how long the prefix is.
    pub fn finish(&mut self) -> Vec<u8> {
        if self.repeating {
            self.diverge();
        }
        self.complete = true;
        self.bytes[self.prefix..].to_vec()
    }

    /// How many bytes of the previous body the latest [`finish`](Self::finish) left out.
    pub fn prefix(&self) -> usize {
        self.prefix
    }

    /// The whole latest body.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// From here on the body differs from the previous one.
    fn diverge(&mut self) {
        self.repeating = false;
        self.bytes.truncate(self.at);
        self.prefix = self.at;
    }

    fn position(&self) -> usize {
        if self.repeating {
            self.at
        } else {
            self.bytes.len()
        }
    }
}

impl Sink for Body {
    fn put(&mut self, bytes: &[u8]) {
        if self.repeating {
            if repeats(&self.bytes[self.at..], bytes) {
                self.at += bytes.len();
                return;
            }
            self.diverge();
        }
        self.bytes.extend_from_slice(bytes);
    }

    /// Known to repeat without reading the previous body at all: at turn 800 the fragments lie
    /// a cache line or more apart in a megabyte, and reading even the comma before each cost a
    /// cache miss per message.
    fn fragment(&mut self, separator: Option<u8>, bytes: &[u8], spot: &Spot) {
        let here = self.position();
        let len = usize::from(separator.is_some()) + bytes.len();
        if self.repeating
            && spot.0.get() == (self.generation - 1, here, separator, bytes.len())
            && here + len <= self.bytes.len()
        {
            self.at += len;
        } else {
            if let Some(separator) = separator {
                self.put(&[separator]);
            }
            self.put(bytes);
        }
        spot.0.set((self.generation, here, separator, bytes.len()));
    }
}

/// Whether `held` starts with `bytes`. Most writes compared are one byte of punctuation, a
/// comma before each message: in the guest a slice comparison is a call to wasi-libc's
/// `memcmp`, which for a megabyte of conversation came to a third of a millisecond a turn.
fn repeats(held: &[u8], bytes: &[u8]) -> bool {
    match bytes {
        [byte] => held.first() == Some(byte),
        _ => held.starts_with(bytes),
    }
}

impl std::io::Write for Body {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.put(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `pieces` (a `Some` spot makes a piece a cached fragment) and gives the returned part
    /// and the prefix.
    fn write(body: &mut Body, held: usize, pieces: &[(&str, Option<&Spot>)]) -> (String, usize) {
        body.expect_held(held as u64);
        let out = body.begin(64);
        for (piece, spot) in pieces {
            match spot {
                Some(spot) => out.fragment(None, piece.as_bytes(), spot),
                None => out.put(piece.as_bytes()),
            }
        }
        let part = String::from_utf8(body.finish()).unwrap();
        (part, body.prefix())
    }

    #[test]
    fn a_held_body_is_repeated_up_to_the_first_change() {
        let (a, b, c) = (Spot::default(), Spot::default(), Spot::default());
        let mut body = Body::default();
        let first = [
            ("{[", None),
            ("aaa", Some(&a)),
            (",", None),
            ("bbb", Some(&b)),
            ("]}", None),
        ];
        assert_eq!(write(&mut body, 0, &first), ("{[aaa,bbb]}".into(), 0));

        // The same pieces and one more: everything up to the first change is repeated.
        let second = [
            ("{[", None),
            ("aaa", Some(&a)),
            (",", None),
            ("bbb", Some(&b)),
            (",", None),
            ("ccc", Some(&c)),
            ("]}", None),
        ];
        assert_eq!(write(&mut body, 11, &second), (",ccc]}".into(), 9));
        assert_eq!(body.bytes(), b"{[aaa,bbb,ccc]}");

        // Not held by the host (or held with another length): written whole.
        assert_eq!(write(&mut body, 0, &second), ("{[aaa,bbb,ccc]}".into(), 0));
        assert_eq!(write(&mut body, 3, &second), ("{[aaa,bbb,ccc]}".into(), 0));

        // A changed header: nothing is repeated (a write repeats whole or not at all), and the
        // spots move with the bytes.
        let moved = [
            ("{{[", None),
            ("aaa", Some(&a)),
            (",", None),
            ("bbb", Some(&b)),
            ("]}", None),
        ];
        assert_eq!(write(&mut body, 15, &moved), ("{{[aaa,bbb]}".into(), 0));
        assert_eq!(write(&mut body, 12, &moved), (String::new(), 12));

        // A fragment whose spot is not where it lands is compared: equal bytes still repeat.
        let fresh = Spot::default();
        let same_bytes = [
            ("{{[", None),
            ("aaa", Some(&fresh)),
            (",", None),
            ("bbb", Some(&b)),
            ("]}", None),
        ];
        assert_eq!(write(&mut body, 12, &same_bytes), (String::new(), 12));
        // A shorter body: its end differs.
        assert_eq!(write(&mut body, 12, &[("{{[", None)]), (String::new(), 3));
        assert_eq!(body.bytes(), b"{{[");
    }

    #[test]
    fn a_body_that_failed_halfway_is_not_repeated() {
        let spot = Spot::default();
        let mut body = Body::default();
        write(
            &mut body,
            0,
            &[("{", None), ("abc", Some(&spot)), ("}", None)],
        );
        body.expect_held(5);
        body.begin(8).put(b"{");
        // No finish: the build failed. The next body is written whole even if the host says
        // it holds one of the same length.
        assert_eq!(
            write(
                &mut body,
                5,
                &[("{", None), ("abc", Some(&spot)), ("}", None)]
            ),
            ("{abc}".into(), 0)
        );
    }
}
