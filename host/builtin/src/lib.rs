//! The first-party plugins, built from `plugins/` for wasm32-wasip2 by this crate's build script
//! and embedded in the tack binary, plus the paths of example and test components built beside
//! them.

/// A plugin shipped inside tack.
pub struct Builtin {
    pub name: &'static str,
    /// Its `tack.toml`.
    pub manifest: &'static str,
    /// The component.
    pub wasm: &'static [u8],
}

/// A file's bytes as a static in a section of their own, apart from the small constants a run
/// reads. The components are megabytes a warm run never reads (it maps the compiled code from the
/// cache); placed among strings such as the manifests, every one of those reads made the kernel
/// map the pages of component around it as well (file pages are mapped in blocks of up to 64
/// KiB), over 1 MiB in all.
#[macro_export]
macro_rules! embedded {
    ($path:expr) => {{
        #[cfg_attr(target_os = "linux", link_section = ".tack_embedded")]
        static BYTES: [u8; include_bytes!($path).len()] = *include_bytes!($path);
        &BYTES
    }};
}

/// Built-in plugins in load order. Providers come first so that tools and hooks can rely on the
/// model list being known. Policies that only block (plan-mode, protected-paths) come before
/// permission-gate, which asks: the first block wins, so the user is never asked about a call
/// a later hook would block anyway.
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "provider-demo",
        manifest: include_str!("../../../plugins/provider-demo/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROVIDER_DEMO")),
    },
    Builtin {
        name: "provider-anthropic",
        manifest: include_str!("../../../plugins/provider-anthropic/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROVIDER_ANTHROPIC")),
    },
    Builtin {
        name: "provider-openai",
        manifest: include_str!("../../../plugins/provider-openai/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROVIDER_OPENAI")),
    },
    Builtin {
        name: "provider-openai-responses",
        manifest: include_str!("../../../plugins/provider-openai-responses/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROVIDER_OPENAI_RESPONSES")),
    },
    Builtin {
        name: "provider-google",
        manifest: include_str!("../../../plugins/provider-google/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROVIDER_GOOGLE")),
    },
    Builtin {
        name: "core-tools",
        manifest: include_str!("../../../plugins/core-tools/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_CORE_TOOLS")),
    },
    Builtin {
        name: "plan-mode",
        manifest: include_str!("../../../plugins/plan-mode/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PLAN_MODE")),
    },
    Builtin {
        name: "protected-paths",
        manifest: include_str!("../../../plugins/protected-paths/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROTECTED_PATHS")),
    },
    // Claude Code runs PreToolUse hooks before its permission check: a hook that blocks spares
    // the user a question.
    Builtin {
        name: "hooks",
        manifest: include_str!("../../../plugins/hooks/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_HOOKS")),
    },
    Builtin {
        name: "permission-gate",
        manifest: include_str!("../../../plugins/permission-gate/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PERMISSION_GATE")),
    },
    Builtin {
        name: "todo",
        manifest: include_str!("../../../plugins/todo/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_TODO")),
    },
    Builtin {
        name: "skills",
        manifest: include_str!("../../../plugins/skills/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_SKILLS")),
    },
    Builtin {
        name: "prompt-templates",
        manifest: include_str!("../../../plugins/prompt-templates/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_PROMPT_TEMPLATES")),
    },
    Builtin {
        name: "subagents",
        manifest: include_str!("../../../plugins/subagents/tack.toml"),
        wasm: embedded!(env!("TACK_GUEST_SUBAGENTS")),
    },
];

pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Components built for examples and tests; not embedded.
pub mod artifacts {
    pub const HELLO_RUST: &str = env!("TACK_GUEST_HELLO_RUST");
    pub const HELLO_RUST_MANIFEST: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/hello-rust/tack.toml"
    );
    pub const TEST_HOSTILE: &str = env!("TACK_GUEST_TEST_HOSTILE");
    pub const TEST_SCRIPTED_PROVIDER: &str = env!("TACK_GUEST_TEST_SCRIPTED_PROVIDER");
    pub const TEST_FUTURE_API: &str = env!("TACK_GUEST_TEST_FUTURE_API");
    pub const PROVIDER_DEMO: &str = env!("TACK_GUEST_PROVIDER_DEMO");
    pub const PROVIDER_ANTHROPIC: &str = env!("TACK_GUEST_PROVIDER_ANTHROPIC");
    pub const PROVIDER_OPENAI: &str = env!("TACK_GUEST_PROVIDER_OPENAI");
    pub const PROVIDER_OPENAI_RESPONSES: &str = env!("TACK_GUEST_PROVIDER_OPENAI_RESPONSES");
    pub const PROVIDER_GOOGLE: &str = env!("TACK_GUEST_PROVIDER_GOOGLE");
    pub const CORE_TOOLS: &str = env!("TACK_GUEST_CORE_TOOLS");
    pub const PLAN_MODE: &str = env!("TACK_GUEST_PLAN_MODE");
    pub const PERMISSION_GATE: &str = env!("TACK_GUEST_PERMISSION_GATE");
    pub const PROTECTED_PATHS: &str = env!("TACK_GUEST_PROTECTED_PATHS");
    pub const TODO: &str = env!("TACK_GUEST_TODO");
    pub const SUBAGENTS: &str = env!("TACK_GUEST_SUBAGENTS");
    pub const HOOKS: &str = env!("TACK_GUEST_HOOKS");
    pub const TEST_HOOKS: &str = env!("TACK_GUEST_TEST_HOOKS");
    pub const TEST_COMPACT_HOOK: &str = env!("TACK_GUEST_TEST_COMPACT_HOOK");
}
