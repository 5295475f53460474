// The image upload of the bookmarks example, as a browser's code would
// make it: a FormData body (multipart/form-data) whose image part is a
// Blob, typed by the document (gen.mjs makes its binary parts Blob).
import type { Client } from "openapi-fetch";
import type { components, paths } from "../gen/schema.js";

type Problem = components["schemas"]["Problem"];
type ImageForm = paths["/api/bookmarks/{id}/image"]["put"]["requestBody"]["content"]["multipart/form-data"];

// A PNG of one transparent pixel.
const dot = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"base64",
);

// A GIF of one pixel without a color table (GIF89a lets a decoder use its
// own), every byte of it below 0x80: it reaches the server unchanged
// through a proxy that reads a body as UTF-8 text, as Prism's does, where
// a PNG's first byte (0x89) does not.
const gif = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;", "latin1");

// asFormData writes the typed body as the multipart/form-data body the
// server reads: one part per member, the file with a name for its type.
function asFormData(body: ImageForm): FormData {
	const fd = new FormData();
	fd.append("image", body.image, body.image.type === "image/gif" ? "dot.gif" : "dot.png");
	if (body.alt !== undefined) {
		fd.append("alt", body.alt);
	}
	return fd;
}

// uploads sets the image of bookmark id, replaces it with a GIF, then
// sends text as a PNG, which the server refuses (415, the problem naming
// the part).
export async function uploads(
	client: Client<paths>,
	auth: Record<string, string>,
	id: number,
	check: (what: string, ok: boolean, got: unknown) => void,
	isProblem: (res: Response, p: Problem | string | undefined, status: number) => p is Problem,
): Promise<void> {
	{
		const { data, response } = await client.PUT("/api/bookmarks/{id}/image", {
			headers: auth,
			params: { path: { id } },
			body: { image: new Blob([dot], { type: "image/png" }), alt: "a transparent dot" },
			bodySerializer: asFormData,
		});
		check(
			"upload an image with FormData",
			response.status === 200 && data?.type === "image/png" && data.size === dot.length && data.alt === "a transparent dot",
			data,
		);
	}
	{
		const { data, response } = await client.PUT("/api/bookmarks/{id}/image", {
			headers: auth,
			params: { path: { id } },
			body: { image: new Blob([gif], { type: "image/gif" }) },
			bodySerializer: asFormData,
		});
		check(
			"replace it with a GIF",
			response.status === 200 && data?.type === "image/gif" && data.size === gif.length && data.alt === "",
			data,
		);
	}
	{
		const { error, response } = await client.PUT("/api/bookmarks/{id}/image", {
			headers: auth,
			params: { path: { id } },
			body: { image: new Blob(["not a picture"], { type: "image/png" }) },
			bodySerializer: asFormData,
		});
		const where = isProblem(response, error, 415) ? (error.errors ?? []).map((e) => e.location) : [];
		check("upload text as a PNG: 415 problem naming body.image", where.join() === "body.image", error);
	}
}
