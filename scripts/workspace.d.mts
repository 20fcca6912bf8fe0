/** The directories of the packages published to npm, relative to the repository root. */
export declare const PUBLISHED_PACKAGES: readonly string[];
/** How to run pnpm: the command and its first arguments. */
export declare function pnpmCommand(): string[];
