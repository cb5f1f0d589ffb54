package output

import (
	"encoding/json"
	"io"
)

// JSON writes v to w as one indented JSON document, as the commands'
// --format json prints it.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
