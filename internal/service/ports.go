package service

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
)

// Ports are chosen below the kernel's ephemeral range, where no outgoing connection takes them
// between our check and the server's bind (bind to port 0 would hand out ephemeral ports).
const portLow = 20000

var (
	portMu   sync.Mutex
	reserved = map[int]bool{} // handed out and not yet bound by their server
)

// freePort returns a port free on 127.0.0.1, reserved until releasePort.
func freePort() (int, error) {
	high := ephemeralLow()
	portMu.Lock()
	defer portMu.Unlock()
	for range 200 {
		p := portLow + rand.IntN(high-portLow)
		if reserved[p] || portFree(p) != nil {
			continue
		}
		reserved[p] = true
		return p, nil
	}
	// A crowded range: let the kernel pick one.
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("no free port on 127.0.0.1: %w", err)
	}
	p := l.Addr().(*net.TCPAddr).Port
	l.Close()
	reserved[p] = true
	return p, nil
}

// freePorts returns n distinct free ports (see freePort).
func freePorts(n int) ([]int, error) {
	out := make([]int, 0, n)
	for range n {
		p, err := freePort()
		if err != nil {
			releasePorts(out...)
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func releasePort(p int) { releasePorts(p) }

func releasePorts(ps ...int) {
	portMu.Lock()
	defer portMu.Unlock()
	for _, p := range ps {
		delete(reserved, p)
	}
}

// ephemeralLow returns the bottom of the kernel's ephemeral port range (32768 by default).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > portLow+1000 {
				return n
			}
		}
	}
	return 32768
}

// ErrPortInUse is returned (wrapped) when a requested port is taken.
var ErrPortInUse = errors.New("already in use")

// portFree checks that port can be bound on 127.0.0.1; the error names who holds it.
func portFree(port int) error {
	if port <= 0 || port > 65535 {
		return fmt.Errorf("port %d out of range 1-65535", port)
	}
	l, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		who := ""
		if pid, comm := portOwner(port); pid != 0 {
			who = fmt.Sprintf(" by pid %d (%s)", pid, comm)
		}
		return fmt.Errorf("port %d on 127.0.0.1 is %w%s; stop that process or choose another port", port, ErrPortInUse, who)
	}
	l.Close()
	return nil
}

// listenAddr is a listening TCP socket.
type listenAddr struct {
	IP   net.IP
	Port int
}

func (a listenAddr) String() string { return net.JoinHostPort(a.IP.String(), strconv.Itoa(a.Port)) }

// listening returns the TCP sockets in LISTEN state, by socket inode, from /proc/net/tcp{,6}.
func listening() map[uint64]listenAddr {
	out := map[uint64]listenAddr{}
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			fld := strings.Fields(sc.Text())
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			if len(fld) < 10 || fld[3] != "0A" {
				continue
			}
			addr, ok := parseProcAddr(fld[1])
			ino, err := strconv.ParseUint(fld[9], 10, 64)
			if ok && err == nil {
				out[ino] = addr
			}
		}
		f.Close()
	}
	return out
}

// parseProcAddr parses "0100007F:1F90" (little-endian 32-bit words) into an address.
func parseProcAddr(s string) (listenAddr, bool) {
	hexIP, hexPort, ok := strings.Cut(s, ":")
	if !ok {
		return listenAddr{}, false
	}
	raw, err := hex.DecodeString(hexIP)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return listenAddr{}, false
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		ip[i], ip[i+1], ip[i+2], ip[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	port, err := strconv.ParseUint(hexPort, 16, 16)
	if err != nil {
		return listenAddr{}, false
	}
	return listenAddr{IP: ip, Port: int(port)}, true
}

// socketInodes returns the inodes of the sockets process pid has open.
func socketInodes(pid int) []uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, _ := os.ReadDir(dir)
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// listenersOf returns the TCP addresses the given processes listen on.
func listenersOf(pids []int) []listenAddr {
	socks := listening()
	var out []listenAddr
	seen := map[uint64]bool{}
	for _, pid := range pids {
		for _, ino := range socketInodes(pid) {
			if a, ok := socks[ino]; ok && !seen[ino] {
				seen[ino] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// portOwner finds a process listening on port (any address), or 0.
func portOwner(port int) (int, string) {
	socks := listening()
	want := map[uint64]bool{}
	for ino, a := range socks {
		if a.Port == port {
			want[ino] = true
		}
	}
	if len(want) == 0 {
		return 0, ""
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		for _, ino := range socketInodes(pid) {
			if want[ino] {
				comm, _ := os.ReadFile("/proc/" + e.Name() + "/comm")
				return pid, strings.TrimSpace(string(comm))
			}
		}
	}
	return 0, ""
}
