package api

import (
	"mime/multipart"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/typed"
)

// File is a file uploaded to a typed operation: a member of its In's Body
// struct of type File, *File (an optional part) or []File (a repeated
// part) makes the body multipart/form-data (RFC 7578), each member a part
// named by its JSON name. See the package documentation, "Uploads", for
// the tags (accept, maxBytes, minItems, maxItems) and what each refusal
// answers.
//
// A File is valid while the handler runs: its content, in memory or in a
// temporary file, is removed when the handler returns, whatever it
// returns, and if it panics. A handler that keeps the content copies it
// (Open, then io.Copy) before it returns. The zero File is empty.
//
// File is waltz's own type rather than [*multipart.FileHeader] because
// what it holds is not what ParseMultipartForm leaves: its media type has
// been checked against the part's bytes, its name is cleaned, and its
// temporary file belongs to the request, so no FileHeader (whose storage
// is unexported) can stand for it.
type File struct{ p *typed.Part }

// Filename returns the file name the client gave in the part's
// Content-Disposition filename parameter (a part with RFC 5987's
// filename*, which RFC 7578 section 4.2 forbids, is refused with a 400),
// its last path element only ("../../x.png" gives "x.png"), with control characters (NUL
// included) and the characters that reorder text (Unicode's bidi
// controls, which make "x\u202Egnp.exe" show as "xexe.png") left out,
// without white space around it, at most 255 bytes; "" when it gave none.
// It is the client's word: never use it as a path on the server without
// checking it yourself.
func (f File) Filename() string {
	if f.p == nil {
		return ""
	}
	return f.p.Filename
}

// Type returns the media type of the content, lower case, without
// parameters ("image/png"): the one the part declared, which its first
// bytes confirmed when the member has an accept tag (see
// [http.DetectContentType]); the sniffed one when the part declared none,
// or application/octet-stream (a type its sender did not know) that the
// accept tag does not list.
func (f File) Type() string {
	if f.p == nil {
		return ""
	}
	return f.p.Type
}

// Size returns the content's length in bytes.
func (f File) Size() int64 {
	if f.p == nil {
		return 0
	}
	return f.p.Size
}

// Open returns a reader of the content from its start, which also reads at
// an offset and seeks; close it when done. It fails only when the
// temporary file cannot be opened (after the handler returned, it is
// gone).
func (f File) Open() (multipart.File, error) { return f.p.Open() }

// NewFile returns a File whose content is content, held in memory, of the
// media type mediaType (such as "image/png"; "" for the one
// [http.DetectContentType] finds in its first bytes), with the file name
// filename ("" for none). It is what a client sends as a file part
// ([github.com/waltz-go/waltz/client] writes it into a multipart/form-data
// body), or what a test hands a handler. content is not copied: leave it
// unchanged while the File is in use.
func NewFile(filename, mediaType string, content []byte) File {
	return File{typed.NewPart(filename, mediaType, content)}
}

// defaultUploadMemory is how many bytes of a request's uploaded files a
// router holds in memory unless SetUploadMemory says otherwise: 1 MiB.
const defaultUploadMemory = 1 << 20

// SetUploadMemory sets the most bytes of one request's uploaded files
// ([File]) held in memory, for the operations registered on r afterwards;
// the rest of a file goes to a temporary file in [os.TempDir], removed
// when the handler returns. Unless it is called, 1 MiB (1<<20); zero or
// negative keeps in memory no more of a file than its first 512 bytes. A
// request's whole body stays within r's MaxBodyBytes. Call it before
// registering routes, as everything else of a Router.
func SetUploadMemory(r *waltz.Router, n int64) { stateOf(r).uploads = n }
