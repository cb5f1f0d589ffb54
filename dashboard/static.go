package dashboard

import (
	"embed"
	"io/fs"
	"net/http"
)

// assets are the front end: plain HTML, CSS and JavaScript, with uPlot
// vendored (see assets/README.md). Nothing is fetched from the network.
//
//go:embed assets
var assets embed.FS

// staticHandler serves the front end.
func staticHandler() http.Handler {
	sub, err := fs.Sub(assets, "assets")
	if err != nil {
		panic(err) // the embedded tree is built in
	}
	return http.FileServerFS(sub)
}
