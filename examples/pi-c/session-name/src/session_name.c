/* Pi's `examples/extensions/session-name.ts` (pi-coding-agent 0.73.1) as a tack plugin in C on
 * tack:plugin@0.2.0, the same plugin as examples/pi/session-name (Rust): `/session-name [name]`
 * names the session, or without a name shows it.
 *
 * Pi's `pi.setSessionName` / `pi.getSessionName` are tack.h's `tack_set_session_name` /
 * `tack_session_name` (`tack:plugin/control`). Pi shows the outcome with `ctx.ui.notify`; a tack
 * command returns the text to show, which every front end (print mode included) displays. */

#include <stdlib.h>
#include <string.h>

#include "tack.h"

bool exports_tack_plugin_guest_init(exports_tack_plugin_guest_init_context_t *ctx,
                                    exports_tack_plugin_guest_registration_t *ret,
                                    plugin_string_t *err) {
  (void)err;
  exports_tack_plugin_guest_init_context_free(ctx);
  memset(ret, 0, sizeof(*ret));
  tack_register_command(ret, "session-name",
                        "Set or show session name (usage: /session-name [new name])");
  return true;
}

static bool is_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool exports_tack_plugin_guest_run_command(plugin_string_t *name, plugin_string_t *args,
                                           plugin_option_string_t *ret, plugin_string_t *err) {
  /* The host routes only the command init registered here. */
  plugin_string_free(name);
  size_t start = 0, end = args->len;
  while (start < end && is_space(args->ptr[start])) start++;
  while (end > start && is_space(args->ptr[end - 1])) end--;
  /* NUL-terminated for the helper, which takes C strings. */
  tack_string_t trimmed;
  tack_string_dup_n(&trimmed, (const char *)args->ptr + start, end - start);
  char *new_name = tack_cstr(&trimmed);
  plugin_string_free(&trimmed);
  plugin_string_free(args);

  bool ok = true;
  if (new_name[0] != '\0') {
    /* An error (an over-long name, say) goes back to the user as the command's error. */
    if (tack_set_session_name(new_name, err)) {
      ret->is_some = true;
      tack_string_printf(&ret->val, "Session named: %s", new_name);
    } else {
      ok = false;
    }
  } else {
    tack_string_t current;
    ret->is_some = true;
    if (tack_session_name(&current)) {
      tack_string_printf(&ret->val, "Session: %.*s", (int)current.len, (const char *)current.ptr);
      plugin_string_free(&current);
    } else {
      tack_string_dup(&ret->val, "No session name set");
    }
  }
  free(new_name);
  return ok;
}
