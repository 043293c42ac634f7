//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Debug, Clone, Parser)]
#[command(
    name = "tack",
    version,
    about = "A coding agent whose tools, providers and hooks are sandboxed WebAssembly plugins",
    after_help = "Examples:\n  tack -p \"list the files here and read README.md\"\n  echo \"search for TODO\" | tack -p\n  tack --mode json \"show git status\"\n  tack plugins"
)]
pub struct Cli {
    /// This start is the terminal UI starting again after `/reload` (plugins hear
    /// `session_start` with reason `reload`). Not a flag.
    #[arg(skip)]
    pub reloaded: bool,

    /// Print mode: run the prompt, print the final answer, exit (1 on error or abort).
    #[arg(short = 'p', long = "print")]
    pub print: bool,

    /// Output mode.
    #[arg(long, value_enum, default_value_t = Mode::Text)]
    pub mode: Mode,

    /// Continue the most recent session in this directory.
    #[arg(short = 'c', long = "continue", conflicts_with_all = ["resume", "no_session"])]
    pub continue_session: bool,

    /// Resume a session by id (or unique prefix) or path; a Pi session file opens in place.
    #[arg(
        short = 'r',
        long,
        visible_alias = "session",
        value_name = "ID|PATH",
        conflicts_with = "no_session"
    )]
    pub resume: Option<String>,

    /// Copy a session (id, unique prefix or path) into a new one and continue the copy; the
    /// original stays as it was.
    #[arg(long, value_name = "ID|PATH", conflicts_with_all = ["resume", "continue_session", "no_session"])]
    pub fork: Option<String>,

    /// Create and look up sessions in this folder instead of tack's per-directory folders.
    #[arg(long, value_name = "DIR", global = true)]
    pub session_dir: Option<PathBuf>,

    /// The models Ctrl+P cycles through: comma-separated patterns (`sonnet:high,gpt-5`,
    /// `anthropic/*`).
    #[arg(long, value_name = "PATTERNS")]
    pub models: Option<String>,

    /// Keep the session in memory only; nothing is written.
    #[arg(long)]
    pub no_session: bool,

    /// Provider id (see `tack plugins`); defaults to the first real provider with an API key,
    /// else the offline demo.
    #[arg(long)]
    pub provider: Option<String>,

    /// Model id.
    #[arg(long)]
    pub model: Option<String>,

    /// API key for the chosen provider (instead of its environment variable).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,

    /// Override the provider's base URL (a proxy, a local server, a compatible API).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Thinking level: off, minimal, low, medium, high, xhigh.
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,

    /// Load a plugin package folder (tack.toml + component) for this run. Its capabilities are
    /// those granted in grants.toml; anything else it declares stays denied.
    #[arg(long = "plugin", value_name = "DIR")]
    pub plugins: Vec<PathBuf>,

    /// Load a Pi extension for this run, unchanged (a `.ts`/`.js` file, or a folder with
    /// package.json or index.ts), as the plugin `pi-<name>`: sandboxed, with the capabilities
    /// granted to that name in grants.toml. Needs Node.js and sdk/pi's toolchain.
    #[arg(short = 'e', long = "extension", value_name = "PATH")]
    pub extensions: Vec<PathBuf>,

    /// Load this project's own plugins (.tack/) without asking, and remember the trust.
    #[arg(long, conflicts_with = "no_trust", global = true)]
    pub trust: bool,

    /// Do not load this project's own plugins.
    #[arg(long, global = true)]
    pub no_trust: bool,

    /// Permission mode: read-only, ask, auto, yolo. Defaults to `auto` in print and JSON modes
    /// (nobody is there to answer a question: writes inside the workspace are allowed, risky
    /// commands and anything outside are refused) unless config.toml sets one. A plugin flag:
    /// the plugin that declares it (permission-gate) takes it.
    #[arg(long, value_name = "MODE")]
    pub permissions: Option<String>,

    /// Start in plan mode (read-only tools; the model presents a plan first). A plugin flag: the
    /// plugin that declares it (plan-mode) takes it.
    #[arg(long)]
    pub plan: bool,

    /// The sandbox the commands plugins run (the bash tool's) are confined by: read-only,
    /// workspace-write (write only under the workspace and the temp dir; the default) or full
    /// (no confinement). Overrides `[sandbox] mode` in config.toml. Your own `!cmd` is never
    /// confined.
    #[arg(long, value_name = "MODE", value_parser = parse_sandbox_mode)]
    pub sandbox: Option<tack_runtime::SandboxMode>,

    /// A flag a plugin declares in its tack.toml (`[[flags]]`), for plugins without a flag of
    /// their own here: `--flag name` or `--flag name=value`. Repeatable.
    #[arg(long = "flag", value_name = "NAME[=VALUE]")]
    pub plugin_flag: Vec<String>,

    /// Load the skill at this path (a skill folder, a SKILL.md, or a folder of skills) besides
    /// those discovered. Repeatable. A plugin flag: the plugin that declares it (skills) takes it.
    #[arg(long = "skill", value_name = "PATH")]
    pub skills: Vec<String>,

    /// Load no skills. A plugin flag: the plugin that declares it (skills) takes it.
    #[arg(long)]
    pub no_skills: bool,

    /// Give the model the task tool, which hands work to sub-agents. A plugin flag: the plugin
    /// that declares it (subagents) takes it.
    #[arg(long)]
    pub subagents: bool,

    /// Load the agent definition at this path (a Markdown file, or a folder of them) besides
    /// those in <tack home>/agents and a trusted project's .tack/agents. Repeatable. A plugin
    /// flag: the plugin that declares it (subagents) takes it.
    #[arg(long = "agent", value_name = "PATH")]
    pub agents: Vec<String>,

    /// Replace tack's system prompt with this text, or with the contents of this file. Context
    /// files, the date and the working directory are still added.
    #[arg(long, value_name = "TEXT|FILE")]
    pub system_prompt: Option<String>,

    /// Text (or a file's contents) appended to the system prompt. Repeatable.
    #[arg(long, value_name = "TEXT|FILE")]
    pub append_system_prompt: Vec<String>,

    /// Leave AGENTS.md / CLAUDE.md out of the system prompt.
    #[arg(long)]
    pub no_context_files: bool,

    /// Only these tools are active (comma-separated names).
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        conflicts_with = "no_tools"
    )]
    pub tools: Option<Vec<String>>,

    /// No tools are active.
    #[arg(long)]
    pub no_tools: bool,

    /// The tools of tack's built-in plugins are not active; those of installed plugins are.
    #[arg(long)]
    pub no_builtin_tools: bool,

    /// Load no plugins (built-in or installed) but those named with --plugin.
    #[arg(long, alias = "no-extensions")]
    pub no_plugins: bool,

    /// Print mode: say what went into the context (context files, system prompt files, plugins
    /// and their commands) on stderr before the answer.
    #[arg(short = 'v', long)]
    pub verbose: bool,

    #[command(subcommand)]
    pub command: Option<Command>,

    /// The prompt. Piped stdin is appended to it.
    #[arg(trailing_var_arg = true)]
    pub prompt: Vec<String>,
}

/// The flags `Cli` hands to the built-in plugins (see [`Cli::plugin_flags`]): a package may not
/// take the paths given with them.
pub use tack_packages::BUILTIN_PLUGIN_FLAGS;

impl Cli {
    /// The plugin flags given, by name without `--`, with their text if they take one. What
    /// each does, the plugin that declares it says.
    pub fn plugin_flags(&self) -> Vec<(String, Option<String>)> {
        let mut flags = Vec::new();
        if let Some(mode) = &self.permissions {
            flags.push(("permissions".to_string(), Some(mode.clone())));
        }
        if self.plan {
            flags.push(("plan".to_string(), None));
        }
        for path in &self.skills {
            flags.push(("skill".to_string(), Some(path.clone())));
        }
        if self.no_skills {
            flags.push(("no-skills".to_string(), None));
        }
        if self.subagents {
            flags.push(("subagents".to_string(), None));
        }
        for path in &self.agents {
            flags.push(("agent".to_string(), Some(path.clone())));
        }
        for given in &self.plugin_flag {
            let given = given.trim_start_matches("--");
            flags.push(match given.split_once('=') {
                Some((name, value)) => (name.to_string(), Some(value.to_string())),
                None => (given.to_string(), None),
            });
        }
        flags
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Human-readable output.
    Text,
    /// Every event as one JSON object per line on stdout.
    Json,
    /// Serve JSON commands from stdin (one per line); responses and events go to stdout.
    Rpc,
}

#[derive(Debug, Clone, Subcommand)]
pub enum Command {
    /// List loaded plugins: version, API version, what each provides, granted capabilities.
    Plugins,
    /// List providers and models, and whether each provider's API key is available.
    Models {
        /// Only models whose `provider/id` or name holds these letters in this order
        /// (`tack models sonnet`, `tack models oai5`).
        search: Option<String>,
    },
    /// Install a plugin package: from a registry (oci://<registry>/<namespace>/<name>:<tag> or
    /// @sha256:<digest>), npm (npm:<package>[@<version>], through your npm and its
    /// configuration), a folder, a .tar.gz (path or URL, optionally #sha256=…), or a git
    /// repository (URL ending in .git or prefixed git+, optionally @tag / @commit). A Pi
    /// package (package.json, no tack.toml) installs its extensions, skills and prompts.
    Install {
        source: String,
        /// Install into this project (.tack/) instead of globally.
        #[arg(short = 'l', long)]
        local: bool,
        /// Grant capabilities without asking: all, fs, exec, http, secrets, or KIND=VALUE.
        /// Without it (and without a terminal) every requested capability is refused.
        #[arg(long, value_name = "CAPABILITY")]
        grant: Vec<String>,
        /// Refuse a package its publisher did not sign (also `[packages] require_signature =
        /// true` in config.toml).
        #[arg(long)]
        require_signature: bool,
    },
    /// Remove an installed package.
    Remove {
        name: String,
        #[arg(short = 'l', long)]
        local: bool,
    },
    /// Re-fetch unpinned packages (moved tags, branches, folders), showing what changed; asks
    /// again when a new version wants more capabilities.
    Update {
        name: Option<String>,
        #[arg(short = 'l', long)]
        local: bool,
        #[arg(long, value_name = "CAPABILITY")]
        grant: Vec<String>,
        /// Refuse an update its publisher did not sign.
        #[arg(long)]
        require_signature: bool,
    },
    /// Publish a package folder (default: .) to an OCI registry as a Wasm OCI artifact:
    /// `tack publish [DIR] oci://<registry>/<namespace>/<name>:<version>`.
    Publish {
        /// The package folder, or the target when no folder is given.
        #[arg(value_name = "DIR")]
        first: String,
        /// The target `oci://…:<tag>`.
        #[arg(value_name = "OCI_REF")]
        second: Option<String>,
        /// Sign the manifest digest with your key (`tack keygen`).
        #[arg(long)]
        sign: bool,
        /// The private key to sign with (default: <tack home>/keys/default.key).
        #[arg(long, value_name = "FILE")]
        key: Option<PathBuf>,
    },
    /// Make an ed25519 key pair for signing packages, in <tack home>/keys/.
    Keygen {
        /// The key's name: <tack home>/keys/<NAME>.key and .pub.
        #[arg(long, default_value = "default")]
        name: String,
    },
    /// Save a provider's API key (`tack login groq`, the key read from stdin, or typed unseen at
    /// a terminal) into <tack home>/auth.json; or, with `-u`, a registry login for publishing
    /// and installing (the password read from stdin).
    Login {
        /// A provider (`tack models` lists them), or with `-u` a registry host like ghcr.io or
        /// 127.0.0.1:5000.
        registry: String,
        /// The registry user name: makes this a registry login.
        #[arg(short = 'u', long, requires = "password_stdin")]
        username: Option<String>,
        /// Read the registry password from stdin (the only way it is taken).
        #[arg(long, requires = "username")]
        password_stdin: bool,
    },
    /// Remove a provider's API key from <tack home>/auth.json.
    Logout { provider: String },
    /// List installed packages, their capabilities and whether their files still match the lock.
    List,
    /// List saved sessions of this directory: id, date, size, first message.
    Sessions {
        /// Sessions of every directory.
        #[arg(long)]
        all: bool,
    },
    /// Copy a Pi session file (format versions 1 to 3) into a new session of tack's; continue it
    /// with `tack -r <id>`. (A version 3 file also opens in place: `tack --session <file>`.)
    /// `tack import claude` / `tack import codex` instead show what of a Claude Code or Codex
    /// set-up (commands, agents, skills, settings, hooks, prompts) tack uses, and as what.
    Import { file: PathBuf },
    /// Export a saved session (id, id prefix or path): `out.html` (the default, in this
    /// directory) is one self-contained page of the whole tree; `out.jsonl` the active branch
    /// as a session file of its own.
    Export {
        session: String,
        output: Option<PathBuf>,
    },
    /// Write plugins: `tack plugin new --lang rust|js|python|c|zig <name>`, `tack plugin dev <dir>`.
    Plugin {
        #[command(subcommand)]
        command: PluginCommand,
    },
    /// MCP servers whose tools tack uses: `tack mcp add <name> -- <command> [args…]`, `list`,
    /// `get`, `remove`, and `import` from Codex's config.toml.
    Mcp {
        #[command(subcommand)]
        command: McpCommand,
    },
    /// Print a completion script for your shell: `tack completions bash > …/completions/tack`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print tack's man page (roff): `tack man > ~/.local/share/man/man1/tack.1`.
    Man,
}

#[derive(Debug, Clone, Subcommand)]
pub enum McpCommand {
    /// The servers of this run, user and project, and whether each is used.
    List,
    /// One server: what it runs, and the variables it sets (names only).
    Get { name: String },
    /// Add a server that tack starts, `tack mcp add github -e GITHUB_TOKEN=... -- npx -y
    /// @modelcontextprotocol/server-github`, or one it reaches, `tack mcp add --transport http
    /// sentry https://mcp.sentry.dev/mcp -H "Authorization: Bearer ${SENTRY_TOKEN}"`. Adding it
    /// is your grant for tack to run or reach it.
    Add {
        /// `user` (~/.tack/mcp.json, every project) or `project` (.mcp.json here, shared with the
        /// repository).
        #[arg(short = 's', long, value_enum, default_value_t = McpScope::User)]
        scope: McpScope,
        /// `stdio` (tack starts the program), `http` (MCP's streamable HTTP at a URL) or `sse`
        /// (the older HTTP+SSE transport).
        #[arg(short = 't', long, value_enum, default_value_t = McpTransport::Stdio)]
        transport: McpTransport,
        /// A variable the server gets, `KEY=VALUE` (`${VAR}` is expanded when tack starts it).
        #[arg(short = 'e', long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A header sent to an http server, `'Name: value'` (`${VAR}` is expanded when tack
        /// starts); one that carries a credential is kept and attached by tack alone.
        #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
        header: Vec<String>,
        name: String,
        /// The program and its arguments, after `--`; or the server's URL.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
    /// Remove a server (from the user's file, else the project's, or the `--scope` given).
    Remove {
        name: String,
        #[arg(short = 's', long, value_enum)]
        scope: Option<McpScope>,
    },
    /// Log in to a server reached over HTTP that asks for it (OAuth, in your browser); tack
    /// keeps the tokens and refreshes them.
    Login { name: String },
    /// Forget the tokens of a server's login.
    Logout { name: String },
    /// Copy the `[mcp_servers]` of Codex's config.toml (`$CODEX_HOME`, else ~/.codex) into the
    /// user's servers; a name already there is kept as it is.
    Import {
        /// Another config.toml to read.
        #[arg(long, value_name = "PATH")]
        from: Option<PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum McpScope {
    User,
    Project,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum McpTransport {
    Stdio,
    Http,
    /// The older HTTP+SSE transport (MCP 2024-11-05).
    Sse,
}

#[derive(Debug, Clone, Subcommand)]
pub enum PluginCommand {
    /// Create a ready-to-build plugin package: tack.toml, sources, SDK files and build.sh.
    New {
        /// Language of the plugin.
        #[arg(long, value_enum)]
        lang: Lang,
        /// Plugin name: lowercase letters, digits and '-'.
        name: String,
        /// Folder to create (default: ./<name>).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Generate the C bindings of a WIT folder (a C plugin's build.sh runs this).
    #[command(name = "c-bindgen")]
    CBindgen {
        /// The WIT folder (a C plugin's `wit/`).
        wit: PathBuf,
        /// Folder for plugin.h, plugin.c and plugin_component_type.o.
        out: PathBuf,
        /// The `tack:plugin` 0.2.0 WIT folder, for a plugin whose tack.toml says `api = "0.2"`:
        /// bind 0.2.0's `plugin` world (`wit` is then the 0.1.0 folder it includes).
        #[arg(long = "wit-0-2", value_name = "DIR")]
        wit_0_2: Option<PathBuf>,
    },
    /// Develop a plugin: build it (its build.sh), run tack with it loaded, and start tack again
    /// on the same session when its component changes or `/reload` is typed (which rebuilds).
    /// Arguments after `--` go to tack (`tack plugin dev . -- --provider demo`).
    Dev {
        /// The plugin's package folder (tack.toml, build.sh).
        dir: PathBuf,
        /// Arguments for tack.
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Turn a wasm32-wasi reactor module into a component (a C plugin's build.sh runs this).
    Componentize {
        /// The core module the C compiler produced.
        core: PathBuf,
        /// The component to write.
        out: PathBuf,
    },
}

fn parse_sandbox_mode(text: &str) -> Result<tack_runtime::SandboxMode, String> {
    text.parse()
}

/// The language of a new plugin (`tack plugin new --lang`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    Rust,
    Js,
    Python,
    C,
    Zig,
}
