/* {{name}}: a tack plugin. Add tools, commands and hooks to the registration and define the
 * matching exports; every export you leave out has a safe default (tack_defaults.c). */

#include <string.h>

#include "tack.h"

bool exports_tack_plugin_guest_init(exports_tack_plugin_guest_init_context_t *ctx,
                                    exports_tack_plugin_guest_registration_t *ret,
                                    plugin_string_t *err) {
  (void)err;
  exports_tack_plugin_guest_init_context_free(ctx);
  tack_log(TACK_PLUGIN_TYPES_LEVEL_INFO, "{{name}} ready");
  memset(ret, 0, sizeof(*ret));
  tack_register_command(ret, "{{command}}", "Say hello from {{name}}");
  return true;
}

bool exports_tack_plugin_guest_run_command(plugin_string_t *name, plugin_string_t *args,
                                           plugin_option_string_t *ret, plugin_string_t *err) {
  (void)err;
  ret->is_some = true;
  if (args->len == 0) {
    tack_string_dup(&ret->val, "Hello, world, from {{name}}!");
  } else {
    tack_string_printf(&ret->val, "Hello, %.*s, from {{name}}!", (int)args->len,
                       (const char *)args->ptr);
  }
  plugin_string_free(name);
  plugin_string_free(args);
  return true;
}
