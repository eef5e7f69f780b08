# A fake agent (or CANN runtime) on a task's socket, for the e2e tests:
# binds $HOME/dynamic_profiling_socket_<its pid>, prints "agent pid=<pid>",
# and serves one connection at a time: on_params(payload) with the params
# message's JSON text (bytes), then on_request(type) for each 8-byte
# request, whose status is what it returns; the reply's type is type + 1.
import os, socket, struct


def read(c, n):
    b = b""
    while len(b) < n:
        x = c.recv(n - len(b))
        if not x:
            return None
        b += x
    return b


def serve(on_params, on_request=lambda t: 0):
    path = "%s/dynamic_profiling_socket_%d" % (os.environ["HOME"], os.getpid())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o600)
    s.listen(4)
    print("agent pid=%d" % os.getpid(), flush=True)
    while True:
        c, _ = s.accept()
        m = read(c, 4100)
        if m is None:
            continue
        n = struct.unpack("=I", m[:4])[0]
        on_params(m[4:4 + n])
        c.sendall(struct.pack("=ii", 0, 0))
        while (m := read(c, 8)):
            t = struct.unpack("=ii", m)[0]
            c.sendall(struct.pack("=ii", t + 1, on_request(t)))
