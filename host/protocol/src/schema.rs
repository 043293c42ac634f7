//! `rpc-protocol.schema.json`, generated from the wire types so that the schema and the code
//! cannot drift apart. `cargo run -p tack -- --write-rpc-schema` is not needed: the test
//! `the_schema_file_is_generated_from_the_wire_types` rewrites the file when
//! `TACK_WRITE_SCHEMA=1` is set, and otherwise fails when it differs.

use schemars::generate::SchemaSettings;
use serde_json::{json, Value};

use super::{ClientLine, ServerLine};

const DESCRIPTION: &str = "LF-delimited JSON, one object per line, in the shapes of Pi's RPC \
mode. The client writes ClientLine objects to stdin; tack writes ServerLine objects to stdout \
(nothing else; logs go to stderr). Every command gets exactly one Response with its id; events \
carry no id. Commands that reach plugins or wait (prompt runs, run_command, bash, abort, compact, \
new_session, switch_session, fork, clone, get_rewind_points, rewind) answer when done, possibly after later commands: match \
responses by id. EOF on stdin aborts a running prompt, waits for its entries to be written, and \
exits 0.";

/// The JSON Schema of every line either side writes.
pub fn generate() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let client = generator.subschema_for::<ClientLine>();
    let server = generator.subschema_for::<ServerLine>();
    let definitions: serde_json::Map<String, Value> = generator.take_definitions(true);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:tack:rpc-protocol",
        "title": "tack --mode rpc",
        "description": DESCRIPTION,
        "oneOf": [client, server],
        "$defs": definitions,
    })
}

/// The file's text: the schema, pretty-printed, with a final newline.
pub fn text() -> String {
    let mut text = serde_json::to_string_pretty(&generate()).unwrap_or_default();
    text.push('\n');
    text
}
