import { fuzzHalf } from "./fuzz.js";

fuzzHalf(0);
