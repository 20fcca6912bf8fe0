import { HttpResponse } from "msw";
import {
  type Account,
  type Collection,
  collectionRecord,
  type Segment,
  type Suppression,
  timestamp,
} from "./account.js";

/** What a stateful handler gets: the account, path params (decoded), query and JSON body. */
export interface Exchange {
  account: Account;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  body: unknown;
}

type Handler = (exchange: Exchange) => Response;

/** The upstream's three error body shapes, used where the upstream uses each. */
export const errorBodies = {
  meta: (message: string) => ({ meta: { error: message } }),
  metaList: (messages: string[]) => ({ meta: { errors: messages } }),
  jsonApi: (status: number, detail: string) => ({ errors: [{ detail, status: String(status) }] }),
};

const notFound = (what: string) => HttpResponse.json(errorBodies.meta(`${what} not found`), { status: 404 });
const noContent = () => new HttpResponse(null, { status: 204 });
const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

function collectionOr404(exchange: Exchange, answer: (collection: Collection) => Response): Response {
  const id = Number(exchange.params.collection_id);
  const collection = exchange.account.collections.get(id);
  return collection ? answer(collection) : notFound(`collection ${id}`);
}

function segmentOr404(exchange: Exchange, answer: (segment: Segment, id: number) => Response): Response {
  const id = Number(exchange.params.segment_id);
  const segment = exchange.account.segments.get(id);
  return segment ? answer(segment, id) : notFound(`segment ${id}`);
}

/** Page tokens are opaque to callers: the offset, base64url-encoded. */
const encodeToken = (offset: number) => Buffer.from(`o:${offset}`).toString("base64url");
function decodeToken(token: string | null): number | undefined {
  if (!token) return 0;
  const match = /^o:(\d+)$/.exec(Buffer.from(token, "base64url").toString());
  return match ? Number(match[1]) : undefined;
}

const collections: Record<string, Handler> = {
  getCollections: ({ account }) =>
    HttpResponse.json({ collections: [...account.collections.values()].map(collectionRecord) }),
  addCollection: ({ account, body }) => {
    const given = record(body);
    const now = timestamp();
    const collection = {
      id: account.nextId++,
      name: String(given.name),
      data: given.data,
      url: given.url as string | undefined,
      created_at: now,
      updated_at: now,
    };
    account.collections.set(collection.id, collection);
    return HttpResponse.json({ collection: collectionRecord(collection) });
  },
  getCollection: (exchange) =>
    collectionOr404(exchange, (collection) =>
      HttpResponse.json({ collection: collectionRecord(collection) }),
    ),
  updateCollection: (exchange) =>
    collectionOr404(exchange, (collection) => {
      const given = record(exchange.body);
      if (typeof given.name === "string") collection.name = given.name;
      if (given.data !== undefined) collection.data = given.data;
      if (typeof given.url === "string") collection.url = given.url;
      collection.updated_at = timestamp();
      return HttpResponse.json({ collection: collectionRecord(collection) });
    }),
  deleteCollection: (exchange) =>
    collectionOr404(exchange, (collection) => {
      exchange.account.collections.delete(collection.id);
      return noContent();
    }),
  getCollectionContents: (exchange) =>
    collectionOr404(exchange, (collection) => HttpResponse.json(collection.data ?? [])),
  updateCollectionContents: (exchange) =>
    collectionOr404(exchange, (collection) => {
      collection.data = exchange.body;
      collection.updated_at = timestamp();
      return HttpResponse.json({ collection: collectionRecord(collection) });
    }),
};

const snippets: Record<string, Handler> = {
  listSnippets: ({ account }) => HttpResponse.json({ snippets: [...account.snippets.values()] }),
  updateSnippets: ({ account, body }) => {
    const given = record(body);
    const snippet = { name: String(given.name), value: String(given.value), updated_at: timestamp() };
    account.snippets.set(snippet.name, snippet);
    return HttpResponse.json({ snippet });
  },
  deleteSnippet: ({ account, params }) => {
    const name = params.snippet_name ?? "";
    if (!account.snippets.has(name)) return notFound(`snippet ${name}`);
    if (account.snippetsInUse.has(name)) {
      return HttpResponse.json(errorBodies.jsonApi(400, "unable to delete snippet in use"), { status: 400 });
    }
    account.snippets.delete(name);
    return noContent();
  },
};

const segments: Record<string, Handler> = {
  listSegments: ({ account }) =>
    HttpResponse.json({ segments: [...account.segments.values()].map((segment) => segment.record) }),
  createManSegment: ({ account, body }) => {
    const given = record(record(body).segment);
    const id = account.nextId++;
    const created = {
      id,
      deduplicate_id: `${id}:${timestamp()}`,
      name: given.name,
      description: given.description,
      state: "finished",
      progress: null,
      type: "manual",
      tags: null,
    };
    account.segments.set(id, { record: created, members: [] });
    return HttpResponse.json({ segment: created });
  },
  getSegment: (exchange) =>
    segmentOr404(exchange, (segment) => HttpResponse.json({ segment: segment.record })),
  deleteManSegment: (exchange) =>
    segmentOr404(exchange, (_, id) => {
      exchange.account.segments.delete(id);
      return noContent();
    }),
  getSegmentCount: (exchange) =>
    segmentOr404(exchange, (segment) => HttpResponse.json({ count: segment.members.length })),
  getSegmentDependencies: (exchange) =>
    segmentOr404(exchange, () =>
      HttpResponse.json({ used_by: { campaigns: [], sent_newsletters: [], draft_newsletters: [] } }),
    ),
  getSegmentMembership: (exchange) =>
    segmentOr404(exchange, ({ members }) => {
      const offset = decodeToken(exchange.query.get("start"));
      if (offset === undefined) {
        return HttpResponse.json(errorBodies.metaList(["invalid start token"]), { status: 400 });
      }
      const limit = Number(exchange.query.get("limit") ?? 1000);
      const page = members.slice(offset, offset + limit);
      const next = offset + limit < members.length ? encodeToken(offset + limit) : "";
      return HttpResponse.json({ ids: page.map((m) => m.id), identifiers: page, next });
    }),
};

type Reason = keyof Account["suppressions"];
/**
 * The list a path's `suppression_type` names; undefined for any other type. An own-property check:
 * a type named `constructor` or `toString` must be unknown, not Object.prototype's member.
 */
function listOf(account: Account, params: Exchange["params"]): Suppression[] | undefined {
  const type = params.suppression_type;
  return type !== undefined && Object.hasOwn(account.suppressions, type)
    ? account.suppressions[type as Reason]
    : undefined;
}
const sameAddress = (email: string) => (entry: Suppression) =>
  entry.email.toLowerCase() === email.toLowerCase();

const suppressions: Record<string, Handler> = {
  getSuppression: ({ account, params }) => {
    const email = params.email_address ?? "";
    const found = (Object.keys(account.suppressions) as Reason[]).flatMap((reason) =>
      account.suppressions[reason]
        .filter(sameAddress(email))
        .map((entry) => ({ ...entry, category: reason })),
    );
    return HttpResponse.json({ suppressions: found });
  },
  getSuppressionByType: ({ account, params, query }) => {
    const list = listOf(account, params) ?? [];
    const offset = Number(query.get("offset") ?? 0);
    const limit = Number(query.get("limit") ?? 100);
    return HttpResponse.json({
      category: params.suppression_type,
      suppressions: list.slice(offset, offset + limit),
    });
  },
  postSuppression: ({ account, params }) => {
    const list = listOf(account, params);
    const email = params.email_address ?? "";
    if (!list) return notFound(`suppression type ${params.suppression_type}`);
    if (!list.some(sameAddress(email))) {
      list.push({ email, created: timestamp(), reason: "Suppressed via the App API", status: "550" });
    }
    return HttpResponse.json({});
  },
  deleteSuppression: ({ account, params }) => {
    const list = listOf(account, params) ?? [];
    const index = list.findIndex(sameAddress(params.email_address ?? ""));
    if (index < 0) return notFound(`suppressed address ${params.email_address}`);
    list.splice(index, 1);
    return noContent();
  },
};

/** Handlers for the endpoints whose effects later calls must see, by operationId. */
export const STATEFUL: Readonly<Record<string, Handler>> = {
  ...collections,
  ...snippets,
  ...segments,
  ...suppressions,
};
