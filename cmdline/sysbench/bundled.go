package sysbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
)

// bundled are the SHA-256 sums of sysbench 1.0.20's bundled scripts
// (/usr/share/sysbench/NAME.lua in Debian's sysbench 1.0.20+ds-5 package),
// each taken without its first line when that line is a #! line: Debian's
// reads #!/usr/bin/sysbench, sysbench's own source #!/usr/bin/env
// sysbench, and the rest is the same.
var bundled = map[string]string{
	"bulk_insert":           "aa303c46d71f2200bec4fe143fe746f5d4f0aebd47023149ce3fe64b51635a68",
	"oltp_delete":           "0f66a3cc6547269619a8db8ea660b4764b26facdf8db234583d93d0a9d16c74b",
	"oltp_insert":           "41e948b4b5104c38bc7d0623b22b7777e6f974b69217a291fe16281911c38584",
	"oltp_point_select":     "a8df447935502a9cd6f9cbf11e91e1403afc14776af2d795e6c25790a786307b",
	"oltp_read_only":        "2e85a293465743ec51947ea643b8e506c5e55a65004e178292c730fe59361917",
	"oltp_read_write":       "7896a91b452a24e70ccf96809649c64172f73ae515531fa1c0cd2336d16de9b4",
	"oltp_update_index":     "ee08292a90b002de58c5e0240a4c675462b568d88d5c0ddb56bc522220e663a5",
	"oltp_update_non_index": "9f802610b8f38d1b1390ad06cfccbc5f9b7462404968fb4039a3965474d7c65d",
	"oltp_write_only":       "e06be71d5aacf5fbd96db871247e9097307cad5f255f8358aa2c9b801e1a729f",
	"select_random_points":  "dea05906163359d8d460669ffa5eb6b75ff9528911c31e2b5e1527d1e52b431f",
	"select_random_ranges":  "6bb9ee3b66f28ef241c000ace5f0d1fd11696da8d48fe5bd3ebaac71f00f85ab",
	"oltp_common":           "710c3b38027668c83e46f3c0814dc7cfd67cc8c4012df6cab461e46d62b5996a",
}

// requires are the modules each bundled script loads with require(): Lua
// finds them in the script's own directory first, so a modified copy
// there changes what the script does as much as a modified script.
var requires = map[string][]string{
	"oltp_delete": {"oltp_common"}, "oltp_insert": {"oltp_common"}, "oltp_point_select": {"oltp_common"},
	"oltp_read_only": {"oltp_common"}, "oltp_read_write": {"oltp_common"}, "oltp_update_index": {"oltp_common"},
	"oltp_update_non_index": {"oltp_common"}, "oltp_write_only": {"oltp_common"},
	"select_random_points": {"oltp_common"}, "select_random_ranges": {"oltp_common"},
}

// scriptSum is the SHA-256 sum of a script's text without its #! line.
func scriptSum(b []byte) string {
	if bytes.HasPrefix(b, []byte("#!")) {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		} else {
			b = nil
		}
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// checkBundled refuses a .lua path whose file, or a module it requires
// from its directory (oltp_common.lua), is not sysbench 1.0.20's bundled
// file of that name: stampede runs its own implementation of
// the bundled scripts, never a file's Lua, so running it would replace the
// user's script without a word. A path that does not exist names the
// bundled script, as before (sysbench's scripts live where sysbench is
// installed, which need not be here).
func checkBundled(arg, script string) error {
	if path.Ext(arg) != ".lua" {
		return nil
	}
	b, err := os.ReadFile(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return inputf("cannot read %s: %v: give a readable copy of sysbench 1.0.20's %s.lua, or the script's bare name, %s", arg, errors.Unwrap(err), script, script)
	case scriptSum(b) != bundled[script]:
		return inputf("%s is not sysbench 1.0.20's %s.lua (its contents differ): stampede runs its own implementation of sysbench's bundled scripts and cannot run a script's Lua, so it will not run yours in its place; give the bundled script's name, %s, or run your script with sysbench", arg, script, script)
	}
	for _, m := range requires[script] {
		p := path.Join(path.Dir(arg), m+".lua")
		b, err := os.ReadFile(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue // sysbench's own, where it is installed
		case err != nil:
			return inputf("cannot read %s, which %s requires: %v: give the bundled script's name, %s", p, arg, errors.Unwrap(err), script)
		case scriptSum(b) != bundled[m]:
			return inputf("%s, which %s requires from its directory, is not sysbench 1.0.20's %s.lua (its contents differ): stampede runs its own implementation of sysbench's bundled scripts and cannot run a script's Lua, so it will not run yours in its place; give the bundled script's name, %s, or run your scripts with sysbench", p, arg, m, script)
		}
	}
	return nil
}
