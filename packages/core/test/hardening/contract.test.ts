import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { type OpenApiDescription, type RecordedRequest, requestContract } from "../../src/testing/index.js";

// A small description with every construct the toolkits' descriptions use.
const DESCRIPTION: OpenApiDescription = {
  info: { title: "Things API" },
  servers: [{ url: "https://api.things.test/v1" }],
  paths: {
    "/things": {
      get: {
        operationId: "listThings",
        parameters: [
          { $ref: "#/components/parameters/accept" },
          { name: "limit", in: "query", schema: { type: "integer", maximum: 100 } },
          { name: "statuses[]", in: "query", schema: { type: "string", enum: ["open", "closed"] } },
          { name: "tags", in: "query", schema: { type: "array", items: { type: "string" } } },
          { name: "since", in: "query", schema: { type: "string", format: "date-time" } },
          { name: "when", in: "query", schema: { type: "integer", format: "unix timestamp" } },
          { name: "total", in: "query", schema: { type: "boolean" } },
          { name: "ratio", in: "query", schema: { type: "number" } },
          { name: "kind", in: "query", schema: { type: "string", enum: ["plain", "_o:<type_id>:create"] } },
        ],
      },
      post: {
        operationId: "createThing",
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
        },
      },
    },
    "/things/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }],
      get: {
        operationId: "getThing",
        parameters: [{ name: "fields", in: "query", required: true, schema: { type: "string" } }],
      },
    },
    "/things/mine": { get: { operationId: "listMine" } },
    "/search": {
      servers: [{ url: "https://search.things.test" }],
      get: { operationId: "search", parameters: [{ name: "q", in: "query", schema: { type: "string" } }] },
    },
    "/notes/{name}": {
      put: {
        operationId: "putNote",
        parameters: [
          { name: "name", in: "path", required: true, schema: { type: "string", pattern: "\\S" } },
        ],
        requestBody: {
          content: {
            "application/json": {
              schema: {
                oneOf: [
                  { type: "object", properties: { text: { type: "string" } } },
                  { type: "object", properties: { html: { type: "string" } } },
                ],
              },
            },
          },
        },
      },
    },
  },
  components: {
    parameters: {
      accept: {
        name: "Accept",
        in: "header",
        required: true,
        schema: { type: "string", enum: ["application/json"] },
      },
    },
    schemas: {
      Thing: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string" }, size: { type: "integer", minimum: 1 } },
        additionalProperties: false,
      },
    },
  },
};

const HEADERS = { accept: "application/json", "content-type": "application/json" };
const request = (method: string, path: string, body = "", headers: Record<string, string> = HEADERS) => ({
  method,
  url: path.startsWith("http") ? path : `https://api.things.test/v1${path}`,
  headers,
  body,
});
const contract = requestContract(DESCRIPTION, { hosts: ["https://eu.things.test"] });
const problems = (recorded: RecordedRequest) => contract.problems(recorded);

describe("requestContract", () => {
  it("lists the operations in the description's order and finds the one a request calls", () => {
    expect(contract.operations.map((operation) => operation.id)).toEqual([
      "listThings",
      "createThing",
      "getThing",
      "listMine",
      "search",
      "putNote",
    ]);
    expect(contract.operationOf(request("GET", "/things/mine"))).toEqual({
      id: "listMine",
      method: "GET",
      path: "/things/mine",
    });
    expect(contract.operationOf(request("GET", "/things/7?fields=a"))?.id).toBe("getThing");
    expect(contract.operationOf(request("GET", "https://search.things.test/search"))?.id).toBe("search");
    expect(contract.operationOf(request("PATCH", "/things"))).toBeUndefined();
  });

  it("accepts conforming requests, at a server or an extra host", () => {
    const query =
      "limit=100&statuses%5B%5D=open&statuses%5B%5D=closed&tags=a&tags=b&since=2024-05-01T00%3A00%3A00Z";
    expect(problems(request("GET", `/things?${query}&when=1&total=true&ratio=0.5`))).toEqual([]);
    expect(problems(request("GET", "https://eu.things.test/v1/things/7?fields=a"))).toEqual([]);
    expect(problems(request("POST", "/things", '{"name":"x","size":2}'))).toEqual([]);
  });

  it.each([
    ["PATCH", "/things", "PATCH https://api.things.test/v1/things is not an operation of Things API"],
    ["GET", "/thing", "GET https://api.things.test/v1/thing is not an operation of Things API"],
    ["GET", "/things?colour=red", "GET /things: query parameter colour is not declared"],
    ["GET", "/things?limit=ten", "GET /things: limit=ten is not an integer"],
    ["GET", "/things?limit=101", "GET /things: limit=101 is above the maximum 100"],
    ["GET", "/things?limit=1&limit=2", "GET /things: limit is repeated but takes one value"],
    ["GET", "/things?statuses%5B%5D=gone", "GET /things: statuses[]=gone is not one of open, closed"],
    ["GET", "/things?since=tomorrow", "GET /things: since=tomorrow is not a date-time"],
    ["GET", "/things?total=yes", "GET /things: total=yes is not a boolean"],
    ["GET", "/things?ratio=half", "GET /things: ratio=half is not a number"],
    ["GET", "/things/seven?fields=a", "GET /things/{id}: {id}=seven is not an integer"],
    ["GET", "/things/7", "GET /things/{id}: required query parameter fields is missing"],
  ])("flags %s %s", (method, path, problem) => {
    expect(problems(request(method, path))).toEqual([problem]);
  });

  it("flags a host that is not a server, and still checks the rest", () => {
    expect(problems(request("GET", "https://elsewhere.test/v1/things?limit=x"))).toEqual([
      "GET /things: https://elsewhere.test is not a server of Things API",
      "GET /things: limit=x is not an integer",
    ]);
  });

  it("flags headers without quoting their values", () => {
    expect(problems(request("GET", "/things", "", {}))).toEqual([
      "GET /things: required header Accept is missing",
    ]);
    expect(problems(request("GET", "/things", "", { accept: "text/secret-value" }))).toEqual([
      "GET /things: header Accept has a value its schema does not allow",
    ]);
    const bearer = requestContract(DESCRIPTION, { headers: { authorization: /^Bearer \S+$/ } });
    expect(
      bearer.problems(request("GET", "/things", "", { ...HEADERS, authorization: "Basic s3cr3t" })),
    ).toEqual(["GET /things: header authorization does not match /^Bearer \\S+$/"]);
  });

  it("checks bodies against the request-body schema, its references resolved", () => {
    expect(problems(request("POST", "/things"))).toEqual(["POST /things: body is missing"]);
    expect(problems(request("POST", "/things", "{name:"))).toEqual(["POST /things: body is not JSON"]);
    expect(problems(request("POST", "/things", "{}", { accept: "application/json" }))).toEqual([
      "POST /things: body is not sent as application/json",
    ]);
    expect(problems(request("POST", "/things", '{"size":0,"colour":"red"}'))).toEqual([
      "POST /things: body / must have required property 'name'",
      "POST /things: body / has colour, which its schema does not declare",
      "POST /things: body /size is below the minimum 1",
    ]);
    expect(problems(request("GET", "/things/mine", "{}"))).toEqual(["GET /things/mine: takes no body"]);
  });

  it("reads overlapping oneOf branches as anyOf when told to, and applies path patterns", () => {
    const note = request("PUT", "/notes/a", '{"text":"x"}');
    expect(problems(note)).toEqual(["PUT /notes/{name}: body / must match exactly one schema in oneOf"]);
    expect(requestContract(DESCRIPTION, { oneOfAsAnyOf: true }).problems(note)).toEqual([]);
    expect(problems(request("PUT", "/notes/%20", '{"text":"x"}'))[0]).toBe(
      'PUT /notes/{name}: {name}=  must match pattern "\\S"',
    );
  });

  it("takes formats in the API's own sense", () => {
    const lenient = requestContract(DESCRIPTION, {
      formats: { "date-time": /^\d{4}-\d{2}-\d{2}/, "unix timestamp": true },
    });
    expect(lenient.problems(request("GET", "/things?since=2024-05-01"))).toEqual([]);
    expect(problems(request("GET", "/things?since=2024-05-01"))).toEqual([
      "GET /things: since=2024-05-01 is not a date-time",
    ]);
  });

  it("reads <placeholders> in enum values as templates when told to", () => {
    const templated = requestContract(DESCRIPTION, { enumPlaceholders: true });
    expect(templated.problems(request("GET", "/things?kind=_o%3A12%3Acreate"))).toEqual([]);
    expect(templated.problems(request("GET", "/things?kind=_o%3A1%3A2%3Acreate"))).toEqual([
      "GET /things: kind=_o:1:2:create is not one of plain, _o:<type_id>:create",
    ]);
    expect(problems(request("GET", "/things?kind=_o%3A12%3Acreate"))).toEqual([
      "GET /things: kind=_o:12:create is not one of plain, _o:<type_id>:create",
    ]);
  });

  it("reads a description from a JSON file", () => {
    const file = join(mkdtempSync(join(tmpdir(), "contract-")), "api.json");
    writeFileSync(file, JSON.stringify(DESCRIPTION));
    expect(requestContract(pathToFileURL(file)).operations).toEqual(contract.operations);
  });
});
