"""{{name}}: a tack plugin. Add tools, commands and hooks to the registration and override the
matching `Plugin` methods; every method you leave out has a safe default."""

from tack_plugin import Err, Plugin, command, export, log, registration, types


class MyPlugin(Plugin):
    def init(self, ctx: types.InitContext) -> types.Registration:
        log("info", "{{name}} ready")
        return registration(commands=[command("{{command}}", "Say hello from {{name}}")])

    def run_command(self, name: str, args: str):
        if name != "{{command}}":
            raise Err(f"unknown command `/{name}`")
        return f"Hello, {args.strip() or 'world'}, from {{name}}!"


Guest = export(MyPlugin)
