package sysbench

import "strings"

// UnknownScript refuses a sysbench command line whose script is neither
// a stampede command (isCommand) nor one of the scripts stampede runs (`stampede
// oltp_nosuch --pgsql-host=h run`), which would otherwise blame the first
// sysbench option as an unknown flag of stampede's.
func UnknownScript(isCommand func(string) bool, args []string) error {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[0], "__") || args[0] == "help" || args[0] == "completion" {
		return nil
	}
	if isCommand(args[0]) {
		return nil
	}
	sysbenchLike := false
	switch args[len(args)-1] {
	case "prepare", "run", "cleanup":
		sysbenchLike = true
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "--pgsql-") || strings.HasPrefix(a, "--db-driver") || strings.HasPrefix(a, "--mysql-") {
			sysbenchLike = true
		}
	}
	if !sysbenchLike {
		return nil
	}
	return inputf("unknown command or sysbench script %q: stampede runs the sysbench scripts %s (their names, or a path ending in NAME.lua); see `stampede --help` for its commands",
		args[0], strings.Join(Scripts, ", "))
}
