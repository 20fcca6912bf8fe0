import { watchSandboxCredentials } from "@toolkits/core/testing";
import { TOOLKITS } from "../src/toolkits.js";

// The server runs every toolkit's sandbox (`--sandbox`, the end-to-end tests): each one's
// credentials join the leak scan for every test file, whether or not it serves that sandbox itself.
for (const toolkit of Object.values(TOOLKITS)) watchSandboxCredentials(await toolkit.sandbox());
