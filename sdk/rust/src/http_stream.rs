//! Responses read as they arrive (`tack:plugin/http-stream`, new in 0.2.0): an event stream that
//! stays open, read a little at each call. Needs the `http` grant as [`crate::http::fetch`] does.
//!
//! ```rust,no_run
//! use tack_sdk::http::Request;
//! use tack_sdk::http_stream::{self, Chunk};
//!
//! let head = http_stream::open(&Request {
//!     method: "GET".into(),
//!     url: "https://example.com/events".into(),
//!     headers: vec![("accept".into(), "text/event-stream".into())],
//!     body: Vec::new(),
//!     secret: None,
//!     timeout_ms: Some(5_000),
//! })?;
//! if let Chunk::Data(bytes) = http_stream::read(head.id, 64 << 10, 1_000)? {
//!     println!("{}", String::from_utf8_lossy(&bytes));
//! }
//! http_stream::close(head.id);
//! # Ok::<(), tack_sdk::http::HttpError>(())
//! ```

pub use crate::additions::tack::plugin0_2_0::http_stream::{
    close, list, open, read, Chunk, StreamHead,
};
