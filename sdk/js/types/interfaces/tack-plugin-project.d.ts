declare module 'tack:plugin/project@0.1.0' {
  /**
   * Whether the user trusts the project (`tack --trust`, or a yes to the
   * trust question, remembered in the tack home). `false` when unknown.
   */
  export function trusted(): boolean;
}
