package program

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// remoteAddrs returns the remote addresses (host:port) of the established
// TCP connections process pid holds: its sockets' inodes, from
// /proc/pid/fd, looked up in the connection tables of its network
// namespace, /proc/pid/net/tcp and tcp6.
func remoteAddrs(pid int) ([]string, error) {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	fds, err := os.ReadDir(filepath.Join(proc, "fd"))
	if err != nil {
		return nil, err
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(proc, "fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	var out []string
	for _, table := range []string{"tcp", "tcp6"} {
		f, err := os.Open(filepath.Join(proc, "net", table))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "01" || !inodes[fields[9]] { // 01: ESTABLISHED
				continue
			}
			if a, err := procAddr(fields[2]); err == nil {
				out = append(out, a)
			}
		}
		f.Close()
	}
	return out, nil
}

// procAddr decodes an address as /proc/net/tcp writes it: the IP in hex,
// in the host's byte order in groups of four bytes, then ":" and the port
// in hex.
func procAddr(s string) (string, error) {
	ipHex, portHex, ok := strings.Cut(s, ":")
	if !ok {
		return "", fmt.Errorf("address %q", s)
	}
	raw, err := hex.DecodeString(ipHex)
	if err != nil || len(raw)%4 != 0 {
		return "", fmt.Errorf("address %q", s)
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 { // each 32-bit word is little-endian
		ip[i], ip[i+1], ip[i+2], ip[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	port, err := strconv.ParseUint(portHex, 16, 16)
	if err != nil {
		return "", fmt.Errorf("address %q", s)
	}
	if v4 := ip.To4(); v4 != nil {
		ip = v4
	}
	return net.JoinHostPort(ip.String(), strconv.FormatUint(port, 10)), nil
}
