package serve

import _ "embed"

// openAPI is the OpenAPI 3.1 description of the API, served at
// GET /v1/openapi.json.
//
//go:embed openapi.json
var openAPI []byte
