package openapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/waltz-go/waltz/openapi"
)

// A document of one operation, written as JSON.
func Example() {
	item := &openapi.PathItem{}
	item.SetOperation(http.MethodGet, &openapi.Operation{
		OperationID: "getBookmark",
		Parameters: []*openapi.Parameter{{Name: "id", In: "path", Required: true,
			Schema: &openapi.Schema{Type: "integer", Format: "int64"}}},
		Responses: map[string]*openapi.Response{"200": {Description: "OK",
			Content: map[string]*openapi.MediaType{"application/json": {Schema: &openapi.Schema{Ref: openapi.SchemaRef + "Bookmark"}}}}},
	})
	doc := &openapi.Document{
		OpenAPI: "3.1.1",
		Info:    openapi.Info{Title: "Bookmarks", Version: "1.0.0"},
		Paths:   map[string]*openapi.PathItem{"/bookmarks/{id}": item},
		Components: openapi.Components{Schemas: map[string]*openapi.Schema{"Bookmark": {
			Type: "object",
			Properties: openapi.Properties{
				{Name: "url", Schema: &openapi.Schema{Type: "string", Format: "uri"}},
				{Name: "tags", Schema: &openapi.Schema{Types: []string{"array", "null"}, Items: &openapi.Schema{Type: "string"}}},
			},
			Required:             []string{"url"},
			AdditionalProperties: openapi.False(),
		}}},
	}
	b, _ := json.MarshalIndent(doc, "", "  ")
	fmt.Println(string(b))
	// Output:
	// {
	//   "openapi": "3.1.1",
	//   "info": {
	//     "title": "Bookmarks",
	//     "version": "1.0.0"
	//   },
	//   "paths": {
	//     "/bookmarks/{id}": {
	//       "get": {
	//         "operationId": "getBookmark",
	//         "parameters": [
	//           {
	//             "name": "id",
	//             "in": "path",
	//             "required": true,
	//             "schema": {
	//               "type": "integer",
	//               "format": "int64"
	//             }
	//           }
	//         ],
	//         "responses": {
	//           "200": {
	//             "description": "OK",
	//             "content": {
	//               "application/json": {
	//                 "schema": {
	//                   "$ref": "#/components/schemas/Bookmark"
	//                 }
	//               }
	//             }
	//           }
	//         }
	//       }
	//     }
	//   },
	//   "components": {
	//     "schemas": {
	//       "Bookmark": {
	//         "type": "object",
	//         "properties": {
	//           "url": {
	//             "type": "string",
	//             "format": "uri"
	//           },
	//           "tags": {
	//             "type": [
	//               "array",
	//               "null"
	//             ],
	//             "items": {
	//               "type": "string"
	//             }
	//           }
	//         },
	//         "required": [
	//           "url"
	//         ],
	//         "additionalProperties": false
	//       }
	//     }
	//   }
	// }
}
