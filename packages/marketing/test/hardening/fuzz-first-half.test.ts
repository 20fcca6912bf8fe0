import { fuzzTools, half } from "./fuzz.js";

fuzzTools(half(0));
