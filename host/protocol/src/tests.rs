use super::*;
use serde_json::json;

#[test]
fn requests_are_flat_objects_with_an_optional_id() {
    let request = Request {
        id: Some("7".into()),
        command: Command::Prompt {
            message: "hi".into(),
            images: Vec::new(),
            streaming_behavior: Some(StreamingBehavior::FollowUp),
        },
    };
    let value = serde_json::to_value(&request).expect("serialize");
    assert_eq!(
        value,
        json!({"id": "7", "type": "prompt", "message": "hi", "streamingBehavior": "followUp"})
    );
    let back: Request = serde_json::from_value(value).expect("deserialize");
    assert_eq!(back, request);
    let bare: Request = serde_json::from_value(json!({"type": "abort_bash"})).expect("no id");
    assert_eq!(bare.id, None);
    assert_eq!(bare.command.name(), "abort_bash");
    let mode: Request =
        serde_json::from_value(json!({"type": "set_steering_mode", "mode": "one-at-a-time"}))
            .expect("mode");
    assert_eq!(
        mode.command,
        Command::SetSteeringMode {
            mode: QueueMode::OneAtATime
        }
    );
}

#[test]
fn command_names_match_their_tags() {
    let commands = [
        Command::FollowUp {
            message: String::new(),
            images: Vec::new(),
        },
        Command::SetModel {
            provider: "p".into(),
            model_id: "m".into(),
        },
        Command::GetLastAssistantText,
        Command::SwitchSession {
            session_path: None,
            session_id: Some("x".into()),
        },
        Command::NewSession {
            parent_session: None,
        },
        Command::CycleModel,
        Command::CycleThinkingLevel,
        Command::SetFollowUpMode {
            mode: QueueMode::All,
        },
        Command::SetAutoRetry { enabled: true },
        Command::AbortRetry,
        Command::GetRewindPoints,
        Command::Rewind {
            entry_id: "e1".into(),
            mode: RewindMode::Code,
        },
        Command::ExportHtml { output_path: None },
        Command::Clone,
        Command::GetForkMessages,
    ];
    for command in commands {
        let value = serde_json::to_value(&command).expect("serialize");
        assert_eq!(value["type"], command.name());
    }
}

#[test]
fn dialog_requests_and_answers_use_pis_shapes() {
    let event = RpcEvent::ExtensionUiRequest(UiRequest {
        id: "d1".into(),
        plugin: "plan-mode".into(),
        method: UiMethod::Select {
            title: "Pick".into(),
            options: vec!["a".into(), "b".into()],
            timeout: Some(500),
        },
    });
    let value = serde_json::to_value(&event).expect("serialize");
    assert_eq!(
        value,
        json!({"type": "extension_ui_request", "id": "d1", "plugin": "plan-mode",
               "method": "select", "title": "Pick", "options": ["a", "b"], "timeout": 500})
    );
    assert_eq!(
        serde_json::from_value::<RpcEvent>(value).expect("deserialize"),
        event
    );
    let status = RpcEvent::ExtensionUiRequest(UiRequest {
        id: "s1".into(),
        plugin: "p".into(),
        method: UiMethod::SetStatus {
            status_key: "k".into(),
            status_text: None,
        },
    });
    assert_eq!(
        serde_json::to_value(&status).expect("status"),
        json!({"type": "extension_ui_request", "id": "s1", "plugin": "p",
               "method": "setStatus", "statusKey": "k", "statusText": null})
    );
    let answer = serde_json::to_value(UiResponse::confirm("d1", true)).expect("answer");
    assert_eq!(
        answer,
        json!({"type": "extension_ui_response", "id": "d1", "confirmed": true})
    );
    let response = Response::err(Some("3".into()), "parse", "bad");
    assert_eq!(
        serde_json::to_value(&response).expect("response"),
        json!({"id": "3", "type": "response", "command": "parse", "success": false, "error": "bad"})
    );
}

#[test]
fn the_schema_file_is_generated_from_the_wire_types() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/rpc-protocol.schema.json");
    let generated = schema::text();
    if std::env::var_os("TACK_WRITE_SCHEMA").is_some() {
        std::fs::write(path, &generated).expect("write the schema");
        return;
    }
    let stored = std::fs::read_to_string(path).expect("read the schema");
    assert!(
        stored == generated,
        "{path} is not what the wire types generate; rerun this test with TACK_WRITE_SCHEMA=1 \
         to rewrite it"
    );
}

#[test]
fn rewind_commands_and_answers_on_the_wire() {
    let bare: Request =
        serde_json::from_value(json!({"type": "rewind", "entryId": "abc"})).expect("rewind");
    assert_eq!(
        bare.command,
        Command::Rewind {
            entry_id: "abc".into(),
            mode: RewindMode::Both
        }
    );
    let request = Request {
        id: Some("3".into()),
        command: Command::Rewind {
            entry_id: "abc".into(),
            mode: RewindMode::Conversation,
        },
    };
    let points = RewindPoints {
        points: vec![RewindPoint {
            entry_id: "abc".into(),
            text: "fix it".into(),
            timestamp: 1_700_000_000_000,
            changed: vec!["src/a.rs".into()],
            created: vec!["new.rs".into()],
            skipped: vec![SkippedFile {
                path: "big.bin".into(),
                size: 9_000_000,
                reason: "larger than the checkpoint size cap".into(),
            }],
        }],
    };
    let done = Rewound {
        mode: RewindMode::Both,
        restored: vec!["src/a.rs".into()],
        deleted: vec!["new.rs".into()],
        skipped: Vec::new(),
        moved_to: Some("parent".into()),
        text: Some("fix it".into()),
    };
    insta::assert_json_snapshot!(json!({
        "request": request,
        "getRewindPoints": points,
        "rewind": done,
    }));
}
