// The front end of examples/app. It finds the API's origin in /config.json,
// signs in (the API sets a session cookie), lists and adds notes, and
// follows the live event stream. Every call to the API is cross-origin,
// with credentials and a custom header, so each needs a CORS preflight.
//
// What each step saw goes into #results as JSON, and data-done turns "true"
// at the end: the end-to-end test reads both from the DOM.
"use strict";

const results = {};

function report(key, value) {
	results[key] = value;
	document.getElementById("results").textContent = JSON.stringify(results, null, 1);
}

// call fetches path from the API with the session cookie and the X-Client
// header, and returns the status, the JSON body (null when there is none)
// and the request ID, a header the API exposes to this origin.
async function call(api, path, init = {}) {
	const headers = Object.assign({"X-Client": "waltz-app"}, init.headers);
	const res = await fetch(api + path, Object.assign({}, init, {credentials: "include", headers}));
	const text = await res.text();
	return {status: res.status, body: text ? JSON.parse(text) : null, id: res.headers.get("X-Request-ID")};
}

function showNotes(list) {
	const ul = document.getElementById("notes");
	ul.replaceChildren(...list.map((n) => {
		const li = document.createElement("li");
		li.textContent = n.title;
		return li;
	}));
}

// follow opens the event stream and resolves with the data of the first
// count events, or rejects on an error before then.
function follow(api, count) {
	return new Promise((resolve, reject) => {
		const got = [];
		const es = new EventSource(api + "/events");
		es.addEventListener("tick", (e) => {
			got.push(JSON.parse(e.data).n);
			const li = document.createElement("li");
			li.textContent = "tick " + e.data;
			document.getElementById("events").append(li);
			if (got.length === count) {
				es.close();
				resolve(got);
			}
		});
		es.onerror = () => {
			es.close();
			reject(new Error("event stream failed after " + got.length + " events"));
		};
	});
}

async function main() {
	report("css", getComputedStyle(document.getElementById("title")).color);
	const cfg = await (await fetch("/config.json")).json();
	document.getElementById("api").textContent = cfg.api;

	report("session", (await call(cfg.api, "/api/session", {method: "POST"})).status);
	const me = await call(cfg.api, "/api/me");
	report("me", {status: me.status, body: me.body});
	report("requestID", me.id);
	const note = await call(cfg.api, "/api/notes", {
		method: "POST",
		headers: {"Content-Type": "application/json"},
		body: JSON.stringify({title: "from the browser"}),
	});
	report("note", note.status);
	const list = await call(cfg.api, "/api/notes");
	showNotes(list.body);
	report("notes", list.body.length);

	document.getElementById("add").addEventListener("submit", async (e) => {
		e.preventDefault();
		const title = new FormData(e.target).get("title");
		await call(cfg.api, "/api/notes", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({title})});
		showNotes((await call(cfg.api, "/api/notes")).body);
		e.target.reset();
	});

	report("events", await follow(cfg.api, 3));
}

main().catch((e) => report("error", String(e))).finally(() => {
	document.getElementById("results").dataset.done = "true";
});
