package io.verglas.cli.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The TCP sockets this process listens on, as the kernel reports them (Linux): the LISTEN
 * entries of {@code /proc/net/tcp} and {@code tcp6} whose inodes are among this process's open
 * file descriptors. Unlike asking each server where it bound, this also finds sockets that
 * libraries open on their own.
 */
final class ListeningSockets {
  private static final String LISTEN = "0A";
  private static final Pattern SOCKET_LINK = Pattern.compile("socket:\\[(\\d+)]");

  /** A listening socket: its local address and port, and its inode (which identifies it). */
  record Listener(InetAddress address, int port, long inode) {
    @Override
    public String toString() {
      return address.getHostAddress() + ":" + port;
    }
  }

  private ListeningSockets() {
  }

  static Set<Listener> ofThisProcess() throws IOException {
    Set<Long> inodes = socketInodes();
    Set<Listener> listeners = new HashSet<>();
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines = Files.readAllLines(Path.of(table));
      for (String line : lines.subList(1, lines.size())) {             // after the header
        String[] fields = line.trim().split("\\s+");
        long inode = Long.parseLong(fields[9]);
        if (fields[3].equals(LISTEN) && inodes.contains(inode)) {
          String[] local = fields[1].split(":");
          listeners.add(new Listener(address(local[0]), Integer.parseInt(local[1], 16), inode));
        }
      }
    }
    return listeners;
  }

  private static Set<Long> socketInodes() throws IOException {
    Set<Long> inodes = new HashSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          Matcher socket = SOCKET_LINK.matcher(Files.readSymbolicLink(fd).toString());
          if (socket.matches()) {
            inodes.add(Long.parseLong(socket.group(1)));
          }
        } catch (IOException closedMeanwhile) {
          // a descriptor closed between the listing and the read: not a listener of ours
        }
      }
    }
    return inodes;
  }

  /**
   * The kernel prints an address as 32-bit words in the host's byte order (one word for IPv4,
   * four for IPv6); an IPv4-mapped IPv6 address comes back as an {@code Inet4Address}.
   */
  private static InetAddress address(String hex) throws UnknownHostException {
    ByteBuffer bytes = ByteBuffer.allocate(hex.length() / 2);
    for (int word = 0; word < hex.length(); word += 8) {
      int value = (int) Long.parseLong(hex.substring(word, word + 8), 16);
      bytes.putInt(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN
          ? Integer.reverseBytes(value) : value);
    }
    return InetAddress.getByAddress(bytes.array());
  }
}
