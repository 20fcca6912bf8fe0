import { fuzzHalf } from "./fuzz.js";

fuzzHalf(1);
