declare module 'tack:plugin/files@0.1.0' {
  /**
   * The Unix permission bits of the file at `path` (`0o644`, say; symlinks
   * are followed). Hosts without Unix modes answer `0o644`, or `0o444` for
   * a read-only file.
   */
  export function permissions(path: string): number;
  /**
   * Sets them. Only the `0o777` bits may be given: set-user-id,
   * set-group-id and sticky are refused.
   */
  export function setPermissions(path: string, mode: number): void;
}
