//! The parts of tack other programs link: the protocol of `tack --mode rpc` and a client that
//! drives the binary through it.

pub mod rpc_client;
pub mod rpc_protocol;
