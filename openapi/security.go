package openapi

// SecurityScheme is a security scheme object (OpenAPI 3.1 section
// 4.8.27): how a request carries credentials of one kind.
type SecurityScheme struct {
	Type        string `json:"type"` // "apiKey", "http", "mutualTLS", "oauth2" or "openIdConnect"
	Description string `json:"description,omitempty"`
	// Name and In are an API key's: the header, query param or cookie
	// named Name, In "header", "query" or "cookie".
	Name string `json:"name,omitempty"`
	In   string `json:"in,omitempty"`
	// Scheme is an http scheme's HTTP authentication scheme ("bearer",
	// "basic"); BearerFormat says what a bearer token is.
	Scheme       string `json:"scheme,omitempty"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// SecurityRequirement is a security requirement object (section 4.8.30):
// the security schemes a request needs together, by their names in
// Components.SecuritySchemes, each with its scopes (none for a scheme
// other than OAuth 2.0 or OpenID Connect). An empty one needs none.
type SecurityRequirement map[string][]string
