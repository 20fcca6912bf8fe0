/**
 * Loads an optional peer dependency of one of this package's entry points, or fails with one line
 * saying what to install, instead of a bare `ERR_MODULE_NOT_FOUND` naming an internal file.
 * @param entry the entry point that needs it, e.g. `@toolkits/core/ai-sdk`
 * @param range the versions that work, e.g. `^5 || ^6`
 * @throws Error `<entry> needs <name> <range>: npm install <name>@"<range>"` when it is not installed
 */
export async function loadPeer<T>(
  load: () => Promise<T>,
  entry: string,
  name: string,
  range: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND" || !String(error).includes(name))
      throw error;
    throw new Error(`${entry} needs ${name} ${range}: npm install ${name}@"${range}"`);
  }
}
