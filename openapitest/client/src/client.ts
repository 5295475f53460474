// A client of the bookmarks example, typed by the types openapi-typescript
// generates from the example's own OpenAPI document (gen/schema.d.ts), its
// calls made with openapi-fetch. tsc (strict) checks it against those
// types; node runs it against a running example:
//
//	node build/src/client.js http://127.0.0.1:PORT TOKEN
//
// It creates bookmarks, lists them with filters, reads one, revalidates it
// (304), edits it with a JSON Merge Patch and If-Match (and is refused the
// same If-Match again: 412), retries a create with its Idempotency-Key
// (replayed), deletes it,
// reads it again (a 404 as problem details), and sends a body that breaks
// the document's rules (a 422 as problem details, each failure with its
// location), uploads an image with FormData, replaces it with a GIF and
// has a text sent as an image refused (upload.ts). Any answer other than
// the expected one exits 1.
import createClient from "openapi-fetch";
import type { components, paths } from "../gen/schema.js";
import { uploads } from "./upload.js";

type Bookmark = components["schemas"]["Bookmark"];
type Problem = components["schemas"]["Problem"];

const [base, token] = process.argv.slice(2);
if (!base || !token) {
	console.error("usage: client.js BASE_URL TOKEN");
	process.exit(2);
}

const client = createClient<paths>({ baseUrl: base });
const auth = { Authorization: `Bearer ${token}` };
let failures = 0;

function check(what: string, ok: boolean, got: unknown): void {
	if (ok) {
		console.log(`ok   ${what}`);
		return;
	}
	failures++;
	console.log(`FAIL ${what}: got ${JSON.stringify(got)}`);
}

// isProblem reports whether an answer is an RFC 9457 problem document
// with the given status, sent as application/problem+json. The document
// lists text/plain beside each problem (what a client whose Accept
// prefers text gets), so an error is a Problem or a string.
function isProblem(res: Response, p: Problem | string | undefined, status: number): p is Problem {
	return (
		res.status === status &&
		(res.headers.get("Content-Type") ?? "").startsWith("application/problem+json") &&
		typeof p === "object" &&
		p.status === status &&
		typeof p.title === "string"
	);
}

async function create(url: string, title: string, tags: string[]): Promise<Bookmark> {
	const { data, response } = await client.POST("/api/bookmarks", {
		headers: auth,
		body: { url, title, tags },
	});
	check(`create ${title}`, response.status === 201 && data?.title === title, data);
	if (!data) {
		throw new Error(`create ${title}: ${response.status}`);
	}
	return data;
}

async function main(): Promise<void> {
	const go = await create("https://go.dev/doc/", "Go documentation", ["go", "docs"]);
	const rfc = await create("https://www.rfc-editor.org/rfc/rfc9457", "RFC 9457", ["http", "docs"]);
	await create("https://go.dev/blog/", "The Go Blog", ["go"]);

	{
		const { data, response } = await client.GET("/api/bookmarks", {
			params: { query: { tag: ["go"], limit: 1, offset: 1 } },
		});
		// Go encodes a nil slice as null, so the document lets items be null.
		const titles = (data?.items ?? []).map((b) => b.title);
		check(
			"list ?tag=go&limit=1&offset=1",
			response.status === 200 && data?.total === 2 && titles?.length === 1 && titles[0] === "The Go Blog",
			data,
		);
	}
	{
		const { data, response } = await client.GET("/api/bookmarks/{id}", {
			params: { path: { id: go.id } },
		});
		check("get by id", response.status === 200 && data?.url === go.url && (data.tags ?? []).join() === "go,docs", data);
	}
	{
		// An edit: a JSON Merge Patch naming the version read in If-Match;
		// the same If-Match again is a lost update, refused.
		const read = await client.GET("/api/bookmarks/{id}", { params: { path: { id: go.id } } });
		const etag = read.response.headers.get("ETag") ?? "";
		check("get: an ETag", read.response.status === 200 && /^"[^"]+"$/.test(etag), etag);
		const again = await client.GET("/api/bookmarks/{id}", {
			params: { path: { id: go.id }, header: { "If-None-Match": etag } },
		});
		check("get with If-None-Match: 304", again.response.status === 304, again.response.status);
		const patch = { title: "Go docs", tags: null };
		const { data, response } = await client.PATCH("/api/bookmarks/{id}", {
			headers: { ...auth, "Content-Type": "application/merge-patch+json" },
			params: { path: { id: go.id }, header: { "If-Match": etag } },
			body: patch,
		});
		check(
			"merge patch with If-Match: 200, the title set, the tags removed, a new ETag",
			response.status === 200 && data?.title === "Go docs" && (data.tags ?? []).length === 0 &&
				(response.headers.get("ETag") ?? etag) !== etag,
			data,
		);
		const lost = await client.PATCH("/api/bookmarks/{id}", {
			headers: { ...auth, "Content-Type": "application/merge-patch+json" },
			params: { path: { id: go.id }, header: { "If-Match": etag } },
			body: { title: "Golang" },
		});
		check("the same If-Match again: 412 problem", isProblem(lost.response, lost.error, 412), lost.error);
	}
	{
		// A create retried with its Idempotency-Key, as after a lost
		// answer: the first answer again, and no second bookmark.
		const key = `"client-${Date.now()}"`;
		const send = () =>
			client.POST("/api/bookmarks", {
				headers: auth,
				params: { header: { "Idempotency-Key": key } },
				body: { url: "https://go.dev/ref/spec", title: "Spec" },
			});
		const first = await send();
		const retry = await send();
		check(
			"create retried with its Idempotency-Key: replayed",
			first.response.status === 201 && retry.response.status === 201 &&
				retry.response.headers.get("Idempotent-Replayed") === "true" && retry.data?.id === first.data?.id,
			retry.data,
		);
	}
	{
		const { response } = await client.DELETE("/api/bookmarks/{id}", {
			headers: auth,
			params: { path: { id: go.id } },
		});
		check("delete", response.status === 204, response.status);
	}
	{
		const { error, response } = await client.GET("/api/bookmarks/{id}", {
			params: { path: { id: go.id } },
		});
		check("get after delete: 404 problem", isProblem(response, error, 404), error);
	}
	{
		const { error, response } = await client.DELETE("/api/bookmarks/{id}", {
			params: { path: { id: go.id } },
		});
		check("delete without a token: 401 problem", isProblem(response, error, 401), error);
	}
	{
		// Types allow these values; the document's rules do not.
		const { error, response } = await client.POST("/api/bookmarks", {
			headers: auth,
			body: { url: "not a url", title: "", tags: ["go", "go"] },
		});
		const where = isProblem(response, error, 422) ? (error.errors ?? []).map((e) => e.location).sort() : [];
		check(
			"invalid create: 422 problem naming body.url, body.title, body.tags",
			where.join() === "body.tags,body.title,body.url",
			error,
		);
	}
	{
		const { error, response } = await client.GET("/api/bookmarks", {
			params: { query: { limit: 1000 } },
		});
		const where = isProblem(response, error, 400) || isProblem(response, error, 422)
			? (error?.errors ?? []).map((e) => e.location)
			: [];
		check("list ?limit=1000: problem naming query.limit", where.join() === "query.limit", error);
	}
	await uploads(client, auth, rfc.id, check, isProblem);
}

main().then(
	() => {
		if (failures > 0) {
			console.log(`${failures} check(s) failed`);
			process.exit(1);
		}
		console.log("client: every check passed");
	},
	(err: unknown) => {
		console.error(err);
		process.exit(1);
	},
);
