// The bookmarks example's answers that are not JSON, read by a client
// typed from the example's OpenAPI document (gen/schema.d.ts) with
// openapi-fetch: a read in XML, the picture download whole and in a
// range, and the feed of changes as server-sent events, each event typed
// by the component the text/event-stream schema's contentSchema lists
// items of (3.1's way to say what a string of events holds) and its data
// by the component that event names. node runs it against a running example:
//
//	node build/src/media.js http://127.0.0.1:PORT TOKEN
//
// Any answer other than the expected one exits 1.
import createClient from "openapi-fetch";
import type { components, paths } from "../gen/schema.js";

type Bookmark = components["schemas"]["Bookmark"];
type Deleted = components["schemas"]["Deleted"];
// One event of the feed, as the document describes it on the wire: the
// 3.1 schema of the body is a string (of events), each event a Change.
type Change = components["schemas"]["Change"];
type Feed = paths["/api/changes"]["get"]["responses"][200]["content"]["text/event-stream"];
// tsc refuses this line if the document calls the body anything but text.
export const feedIsText: Feed extends string ? true : false = true;

const [base, token] = process.argv.slice(2);
if (!base || !token) {
	console.error("usage: media.js BASE_URL TOKEN");
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

const pngSignature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

// readEvents reads events from an event stream's body, as an
// EventSource parses them (lines "field: value", a blank line ends an
// event), up to the first for which last is true, and stops reading.
async function readEvents(body: ReadableStream<Uint8Array>, last: (c: Change) => boolean): Promise<Change[]> {
	const reader = body.getReader();
	const decoder = new TextDecoder();
	const events: Change[] = [];
	let text = "";
	let over = false;
	while (!over) {
		const { done, value } = await reader.read();
		if (done) {
			break;
		}
		text += decoder.decode(value, { stream: true });
		let end: number;
		while (!over && (end = text.indexOf("\n\n")) >= 0) {
			const fields = new Map<string, string>();
			for (const line of text.slice(0, end).split("\n")) {
				const colon = line.indexOf(": ");
				if (colon > 0) {
					fields.set(line.slice(0, colon), line.slice(colon + 2));
				}
			}
			text = text.slice(end + 2);
			const event = fields.get("event");
			const data = fields.get("data") ?? "";
			const id = fields.get("id");
			if (event === "created" || event === "deleted") {
				const c: Change = id === undefined ? { event, data } : { event, data, id };
				events.push(c);
				over = last(c);
			}
		}
	}
	await reader.cancel();
	return events;
}

async function main(): Promise<void> {
	const { data: made } = await client.POST("/api/bookmarks", {
		headers: auth,
		body: { url: "https://go.dev/tour/", title: "A Tour of Go", tags: ["go"] },
	});
	if (!made) {
		throw new Error("create failed");
	}
	{
		const { data, response } = await client.GET("/api/bookmarks/{id}", {
			params: { path: { id: made.id } },
			headers: { Accept: "application/xml" },
			parseAs: "text",
		});
		check(
			"get in XML",
			response.status === 200 &&
				(response.headers.get("Content-Type") ?? "").startsWith("application/xml") &&
				response.headers.get("Vary") === "Accept" &&
				(data ?? "").includes("<title>A Tour of Go</title>"),
			data,
		);
	}
	let size = 0;
	{
		const { data, response } = await client.GET("/api/bookmarks/{id}/image", {
			params: { path: { id: made.id } },
			parseAs: "arrayBuffer",
		});
		const bytes = new Uint8Array(data ?? new ArrayBuffer(0));
		size = bytes.length;
		check(
			"download the picture: a PNG",
			response.status === 200 &&
				response.headers.get("Content-Type") === "image/png" &&
				pngSignature.every((b, i) => bytes[i] === b),
			[response.status, response.headers.get("Content-Type"), size],
		);
	}
	{
		const { data, response } = await client.GET("/api/bookmarks/{id}/image", {
			params: { path: { id: made.id } },
			headers: { Range: "bytes=0-7" },
			parseAs: "arrayBuffer",
		});
		const bytes = new Uint8Array(data ?? new ArrayBuffer(0));
		check(
			"download its first 8 bytes: 206",
			response.status === 206 &&
				response.headers.get("Content-Range") === `bytes 0-7/${size}` &&
				bytes.length === 8 &&
				pngSignature.every((b, i) => bytes[i] === b),
			[response.status, response.headers.get("Content-Range"), bytes.length],
		);
	}
	{
		// Three changes, then the feed from the first of them.
		const { data: other } = await client.POST("/api/bookmarks", {
			headers: auth,
			body: { url: "https://go.dev/play/", title: "Playground" },
		});
		await client.DELETE("/api/bookmarks/{id}", { headers: auth, params: { path: { id: made.id } } });
		// The stream does not end: read up to the deletion, for at most
		// 10 seconds.
		const controller = new AbortController();
		const timer = setTimeout(() => controller.abort(), 10_000);
		const { data, response } = await client.GET("/api/changes", {
			headers: { "Last-Event-ID": "0" },
			parseAs: "stream",
			signal: controller.signal,
		});
		const isMine = (c: Change): boolean => c.event === "deleted" && (JSON.parse(c.data) as Deleted).id === made.id;
		const events = data ? await readEvents(data, isMine) : [];
		clearTimeout(timer);
		controller.abort();
		const last = events.slice(-3);
		const [a, b, c] = last;
		const created = a?.event === "created" ? (JSON.parse(a.data) as Bookmark) : undefined;
		const second = b?.event === "created" ? (JSON.parse(b.data) as Bookmark) : undefined;
		const gone = c?.event === "deleted" ? (JSON.parse(c.data) as Deleted) : undefined;
		check(
			"the feed: created, created, deleted, typed",
			response.headers.get("Content-Type") === "text/event-stream" &&
				created?.title === "A Tour of Go" &&
				second?.id === other?.id &&
				gone?.id === made.id &&
				// The feed's IDs are its log's: a number, then the log's tag.
				parseInt(c?.id ?? "", 10) === parseInt(b?.id ?? "", 10) + 1,
			last,
		);
	}
}

main().then(
	() => {
		if (failures > 0) {
			console.log(`${failures} check(s) failed`);
			process.exit(1);
		}
		console.log("media: every check passed");
	},
	(err: unknown) => {
		console.error(err);
		process.exit(1);
	},
);
