/* {{name}}: a tack plugin. Add tools, commands and hooks to the registration and define the
 * matching exports; every export you leave out has a safe default (tack_defaults.c). */

#include <stdlib.h>
#include <string.h>

#include "tack.h"

#define TOOL_NAME "{{command}}_greet"

/* "Hello, <who>, from {{name}}!", with "world" for an empty name. */
static void greeting(tack_string_t *out, const uint8_t *who, size_t len) {
  while (len > 0 && (*who == ' ' || *who == '\t' || *who == '\n')) who++, len--;
  while (len > 0 && (who[len - 1] == ' ' || who[len - 1] == '\t' || who[len - 1] == '\n')) len--;
  if (len == 0) {
    tack_string_dup(out, "Hello, world, from {{name}}!");
  } else {
    tack_string_printf(out, "Hello, %.*s, from {{name}}!", (int)len, (const char *)who);
  }
}

bool exports_tack_plugin_guest_init(exports_tack_plugin_guest_init_context_t *ctx,
                                    exports_tack_plugin_guest_registration_t *ret,
                                    plugin_string_t *err) {
  (void)err;
  exports_tack_plugin_guest_init_context_free(ctx);
  tack_log(TACK_PLUGIN_TYPES_LEVEL_INFO, "{{name}} ready");
  memset(ret, 0, sizeof(*ret));
  tack_register_tool(ret, TOOL_NAME, "Greet", "Greets someone by name.",
                     "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
                     "\"description\":\"Who to greet.\"}},\"required\":[\"name\"],"
                     "\"additionalProperties\":false}");
  tack_register_command(ret, "{{command}}", "Say hello from {{name}}");
  return true;
}

void exports_tack_plugin_guest_call_tool(exports_tack_plugin_guest_tool_call_t *call,
                                         exports_tack_plugin_guest_tool_result_t *ret) {
  tack_string_t who;
  bool ours = call->name.len == strlen(TOOL_NAME) &&
              memcmp(call->name.ptr, TOOL_NAME, call->name.len) == 0;
  if (!ours) {
    tack_error_result(ret, "unknown tool");
  } else if (!tack_json_get_string(&call->arguments, "name", &who)) {
    tack_error_result(ret, TOOL_NAME ": `name` is missing");
  } else {
    tack_string_t text;
    greeting(&text, who.ptr, who.len);
    char *cstr = tack_cstr(&text);
    tack_text_result(ret, cstr, NULL);
    free(cstr);
    plugin_string_free(&text);
    plugin_string_free(&who);
  }
  exports_tack_plugin_guest_tool_call_free(call);
}

bool exports_tack_plugin_guest_run_command(plugin_string_t *name, plugin_string_t *args,
                                           plugin_option_string_t *ret, plugin_string_t *err) {
  (void)err;
  ret->is_some = true;
  greeting(&ret->val, args->ptr, args->len);
  plugin_string_free(name);
  plugin_string_free(args);
  return true;
}
