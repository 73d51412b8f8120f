package memberbin

import "net"

// FreePort returns a loopback address with a port nobody listens on now:
// for etcd's client URL, which its HTTP/JSON gateway dials as configured,
// so port 0 would leave it dialing 127.0.0.1:0. Another process may take
// the port first; the caller then tries another.
func FreePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
