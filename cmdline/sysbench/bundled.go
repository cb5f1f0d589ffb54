package sysbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// requires are the modules each bundled script loads with require().
var requires = map[string][]string{
	"oltp_delete": {"oltp_common"}, "oltp_insert": {"oltp_common"}, "oltp_point_select": {"oltp_common"},
	"oltp_read_only": {"oltp_common"}, "oltp_read_write": {"oltp_common"}, "oltp_update_index": {"oltp_common"},
	"oltp_update_non_index": {"oltp_common"}, "oltp_write_only": {"oltp_common"},
	"select_random_points": {"oltp_common"}, "select_random_ranges": {"oltp_common"},
}

// sysbenchDataDir is where Debian's sysbench 1.0.20 keeps its bundled
// scripts: the last entry of its package.path.
const sysbenchDataDir = "/usr/share/sysbench"

// luaPath is sysbench 1.0.20's package.path, as `sysbench` prints it
// with a script of `print(package.path)`: the current directory first
// (./?.lua, ./?/init.lua, ./src/lua/?.lua), then luarocks' trees under
// $HOME, the system's Lua trees and last the bundled scripts. LUA_PATH
// replaces it, its ";;" standing for this default, as in Lua. The
// script's own directory is never searched.
func luaPath(getenv func(string) (string, bool)) []string {
	def := "./?.lua;./?/init.lua;./src/lua/?.lua;"
	if home, ok := getenv("HOME"); ok {
		def += home + "/.luarocks/share/lua/5.1/?.lua;" + home + "/.luarocks/share/lua/5.1/?/init.lua;" +
			home + "/.luarocks/share/lua/?.lua;" + home + "/.luarocks/share/lua/?/init.lua;"
	}
	def += "/usr/local/share/lua/5.1/?.lua;/usr/share/lua/5.1/?.lua;" + sysbenchDataDir + "/?.lua;"
	p := def
	if env, ok := getenv("LUA_PATH"); ok {
		p = strings.ReplaceAll(env, ";;", ";"+def+";")
	}
	var out []string
	for _, t := range strings.Split(p, ";") {
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// searchPath is Lua 5.1's package.searchpath: the first template whose
// "?", replaced by name with its dots turned to slashes, names a file
// that opens (a directory opens too, and then fails to load).
func searchPath(name string, templates []string) string {
	name = strings.ReplaceAll(name, ".", "/")
	for _, t := range templates {
		p := strings.ReplaceAll(t, "?", name)
		if f, err := os.Open(p); err == nil {
			f.Close()
			return p
		}
	}
	return ""
}

// Loads is the Lua file sysbench 1.0.20 runs for the script argument arg:
// arg itself when it is a regular file, or else the first match of arg
// as a module name in its package.path (so `oltp_read_only` runs
// ./oltp_read_only.lua when the current directory holds one). "" when
// it finds none.
func Loads(arg string, getenv func(string) (string, bool)) string {
	if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
		return arg
	}
	return searchPath(arg, luaPath(getenv))
}

// shown is a found file's name as a message gives it: absolute, so
// that "./oltp_common.lua" says which directory it is in.
func shown(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
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

// checkBundled refuses a script argument for which sysbench 1.0.20
// would run Lua that is not its own bundled file: the file sysbench loads
// for arg (Loads: the path itself, or for a bare name the first match in
// package.path, which starts with the current directory), or a module
// that script requires (oltp_common, found the same way: a modified
// ./oltp_common.lua in the current directory changes every OLTP script).
// stampede runs its own implementation of the bundled scripts, never a
// file's Lua, so running it would replace the user's Lua without a word.
// Where sysbench finds no file, arg names the bundled script, as before
// (sysbench's scripts live where sysbench is installed, which need not
// be here).
func checkBundled(arg, script string) error {
	return checkBundledEnv(arg, script, os.LookupEnv)
}

// checkBundledEnv is checkBundled with the environment (HOME, LUA_PATH)
// that sysbench's package.path is built from.
func checkBundledEnv(arg, script string, getenv func(string) (string, bool)) error {
	const cannot = "stampede runs its own implementation of sysbench's bundled scripts and cannot run a script's Lua, so it will not run yours in its place"
	file := Loads(arg, getenv)
	if st, err := os.Stat(arg); file == "" && err == nil && !st.Mode().IsRegular() {
		return inputf("cannot read %s: is a directory: give a readable copy of sysbench 1.0.20's %s.lua, or the script's bare name, %s", arg, script, script)
	}
	if file != "" {
		ok, err := same(file, script)
		switch {
		case err != nil && file == arg:
			return inputf("cannot read %s: %v: give a readable copy of sysbench 1.0.20's %s.lua, or the script's bare name, %s", arg, err, script, script)
		case err != nil:
			return inputf("for %s, sysbench 1.0.20 would run %s (it looks in the current directory first), which cannot be read: %v: run stampede from another directory", arg, shown(file), err)
		case !ok && file == arg:
			return inputf("%s is not sysbench 1.0.20's %s.lua (its contents differ): %s; give the bundled script's name, %s, or run your script with sysbench", arg, script, cannot, script)
		case !ok:
			return inputf("for %s, sysbench 1.0.20 would run %s (it looks in the current directory first), which is not its bundled %s.lua (its contents differ): %s; run stampede from another directory, or run your script with sysbench", arg, shown(file), script, cannot)
		}
	}
	for _, m := range requires[script] {
		p := searchPath(m, luaPath(getenv))
		if p == "" {
			continue // sysbench is not installed here and nothing shadows it
		}
		ok, err := same(p, m)
		switch {
		case err != nil:
			return inputf("%s requires %s, which sysbench 1.0.20 would load from %s, which cannot be read: %v: run stampede from another directory", arg, m, shown(p), err)
		case !ok:
			return inputf("%s requires %s, and sysbench 1.0.20 would load %s (Lua's package.path looks in the current directory first), which is not its bundled %s.lua (its contents differ): %s; run stampede from another directory, or run your scripts with sysbench", arg, m, shown(p), m, cannot)
		}
	}
	return nil
}

// same reports whether the file p is sysbench 1.0.20's bundled name.lua.
func same(p, name string) (bool, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		return false, err
	}
	return scriptSum(b) == bundled[name], nil
}
