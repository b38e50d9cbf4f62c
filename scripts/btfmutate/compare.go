package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// guestResult is what the guest printed for one module copy.
type guestResult struct {
	loaded    bool
	ended     bool
	attempted bool // the first load attempt's lines are all in log
	log       []string
}

// dmesgStamp is the time stamp dmesg puts before each line.
var dmesgStamp = regexp.MustCompile(`^\[\s*[0-9.]+\] `)

// readConsole reads the guest's results from its console log.
func readConsole(path string) (map[string]*guestResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	res := map[string]*guestResult{}
	get := func(name string) *guestResult {
		if res[name] == nil {
			res[name] = &guestResult{}
		}
		return res[name]
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n") {
		i := strings.Index(line, "MUT")
		if i < 0 {
			continue
		}
		f := strings.SplitN(line[i:], " ", 3)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "MUT":
			if len(f) == 3 {
				get(f[1]).loaded = strings.HasPrefix(f[2], "loaded")
			}
		case "MUTLOG":
			// busybox's insmod tries init_module after finit_module
			// fails, so the kernel may log a refusal twice: keep the
			// first attempt's lines, up to the loader's line.
			if g := get(f[1]); len(f) == 3 && !g.attempted {
				l := dmesgStamp.ReplaceAllString(f[2], "")
				g.log = append(g.log, l)
				g.attempted = strings.HasPrefix(l, "failed to validate module")
			}
		case "MUTEND":
			get(f[1]).ended = true
		}
	}
	return res, nil
}

// gobtfResult is the part of gobtf check --json's object compared.
type gobtfResult struct {
	File     string   `json:"file"`
	Accepted bool     `json:"accepted"`
	Reason   string   `json:"reason"`
	Log      []string `json:"log"`
	Error    string   `json:"error"`
}

func compareGuest(console, gobtf, base, dir string) (bool, error) {
	guest, err := readConsole(console)
	if err != nil {
		return false, err
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "manifest"))
	if err != nil {
		return false, err
	}
	what := map[string]string{}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(manifest)), "\n") {
		name, w, _ := strings.Cut(l, " ")
		what[name] = w
		names = append(names, name)
	}
	args := []string{"check", "--json", "--kernel", "6.1", "--as", "module", "--base", base}
	for _, n := range names {
		args = append(args, filepath.Join(dir, n))
	}
	out, err := exec.Command(gobtf, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // some rejected
	}
	if err != nil {
		return false, fmt.Errorf("running %s: %v", gobtf, err)
	}
	ours := map[string]gobtfResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r gobtfResult
		if err := json.Unmarshal(sc.Bytes(), &r); err == nil && r.File != "" {
			ours[filepath.Base(r.File)] = r
		}
	}
	var agree, rejected, missing int
	reasons := map[string]int{}
	var bad []string
	// trim joins log lines for comparison: trailing blanks dropped, and
	// bytes that are not UTF-8 replaced as JSON replaces them in gobtf's
	// output.
	trim := func(lines []string) string {
		var t []string
		for _, l := range lines {
			b, _ := json.Marshal(strings.TrimRight(l, " \t"))
			var u string
			json.Unmarshal(b, &u)
			t = append(t, u)
		}
		return strings.Join(t, " | ")
	}
	for _, n := range names {
		g, o := guest[n], ours[n]
		switch {
		case g == nil || !g.ended:
			missing++
			bad = append(bad, fmt.Sprintf("%s (%s): the guest printed no result", n, what[n]))
			continue
		case o.File == "" || o.Error != "":
			bad = append(bad, fmt.Sprintf("%s (%s): gobtf check: %s", n, what[n], o.Error))
			continue
		case g.loaded != o.Accepted:
			bad = append(bad, fmt.Sprintf("%s (%s): the kernel %s it, gobtf check says accepted=%v (%s); kernel log: %s",
				n, what[n], map[bool]string{true: "loaded", false: "refused"}[g.loaded], o.Accepted, o.Reason, trim(g.log)))
			continue
		}
		if !g.loaded {
			rejected++
			reasons[o.Reason]++
			if trim(g.log) != trim(o.Log) {
				bad = append(bad, fmt.Sprintf("%s (%s): kernel log %q, gobtf's %q", n, what[n], trim(g.log), trim(o.Log)))
				continue
			}
		}
		agree++
	}
	fmt.Printf("btfmutate: %d mutated modules: the 6.1 kernel and gobtf check --kernel 6.1 --as module agree on %d (%d refused by both, with the same kernel log lines); %d without a guest result\n",
		len(names), agree, rejected, missing)
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("  %5d  %s\n", reasons[k], k)
	}
	for _, b := range bad {
		fmt.Println("DISAGREE", b)
	}
	return len(bad) == 0, nil
}
