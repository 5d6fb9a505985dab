package io.verglas.bench.cache;

import io.verglas.net.LoopbackPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The peer: Debian's nginx as a caching reverse proxy with the slice module, configured in a
 * temporary directory and run in the foreground as a child process.
 *
 * <p>Configuration (the standard recipe for caching large objects by range): {@code slice}
 * with the same size as the cache node's blocks; {@code proxy_cache_key} includes
 * {@code $slice_range}; the {@code Range} header sent upstream is the slice; 200 and 206 are
 * cached for an hour; {@code proxy_cache_lock} coalesces concurrent misses; keep-alive to the
 * origin; sendfile on, tcp_nopush off (with it, keep-alive responses stalled ~40 ms on delayed
 * ACKs). GET and HEAD are cached; PUT and everything else pass through to the
 * origin (and do not touch the cache): the upstream Range header is {@code $slice_range} only for
 * GET and HEAD, through a {@code volatile} map (a cached map value would be shared by the slice
 * subrequests and ask every slice for the first one's range). Two workers, as the machine has
 * two cores.
 */
final class NginxPeer implements AutoCloseable {
  private final Path dir;
  private final Process process;
  private final int port;

  NginxPeer(Path binary, Path dir, int upstreamPort, int sliceBytes) throws IOException, InterruptedException {
    this.dir = dir;
    this.port = LoopbackPorts.free("nginx");
    Files.createDirectories(dir.resolve("cache"));
    Files.writeString(dir.resolve("nginx.conf"), config(upstreamPort, sliceBytes));
    this.process = new ProcessBuilder(binary.toString(), "-p", dir.toString(), "-c",
        dir.resolve("nginx.conf").toString(), "-e", dir.resolve("error.log").toString(), "-g", "daemon off;")
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("stdout.log").toFile())
        .start();
    // nginx outlives the JVM unless stopped: stop it on exit too.
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroy, "nginx-stop"));
    awaitPort();
  }

  /** The nginx binary: {@code /usr/sbin/nginx} or {@code nginx} on the PATH. */
  static Optional<Path> binary() {
    for (String candidate : List.of("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Optional.of(Path.of(candidate));
      }
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String d : path.split(":")) {
        Path p = Path.of(d, "nginx");
        if (Files.isExecutable(p)) {
          return Optional.of(p);
        }
      }
    }
    return Optional.empty();
  }

  /** The master process's id (its workers are its children). */
  long pid() {
    return process.pid();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  private String config(int upstreamPort, int sliceBytes) {
    String d = dir.toString();
    boolean root = "root".equals(System.getProperty("user.name"));
    return (root ? "user root;\n" : "")
        + "worker_processes 2;\n"
        + "pid " + d + "/nginx.pid;\n"
        + "error_log " + d + "/error.log warn;\n"
        + "events { worker_connections 4096; }\n"
        + "http {\n"
        + "  access_log off;\n"
        + "  sendfile on;\n"
        // tcp_nopush (TCP_CORK) made keep-alive responses stall ~40 ms (delayed ACK) with the
        // Java client; without it nginx answers cached 64 KiB ranges in 1-2 ms.
        + "  tcp_nopush off;\n"
        + "  tcp_nodelay on;\n"
        + "  keepalive_requests 100000;\n"
        + "  client_max_body_size 0;\n"
        + "  client_body_temp_path " + d + "/client_body;\n"
        + "  proxy_temp_path " + d + "/proxy_temp;\n"
        + "  fastcgi_temp_path " + d + "/fastcgi_temp;\n"
        + "  uwsgi_temp_path " + d + "/uwsgi_temp;\n"
        + "  scgi_temp_path " + d + "/scgi_temp;\n"
        + "  proxy_cache_path " + d + "/cache levels=1:2 keys_zone=bench:64m max_size=16g inactive=1h use_temp_path=off;\n"
        // volatile: subrequests (one per slice) share the parent's cached variables otherwise.
        + "  map $request_method $origin_range { volatile; GET $slice_range; HEAD $slice_range; default \"\"; }\n"
        + "  upstream origin { server 127.0.0.1:" + upstreamPort + "; keepalive 64; }\n"
        + "  server {\n"
        + "    listen 127.0.0.1:" + port + ";\n"
        + "    location / {\n"
        + "      slice " + sliceBytes + ";\n"
        + "      proxy_cache bench;\n"
        + "      proxy_cache_key $uri$is_args$args$slice_range;\n"
        + "      proxy_set_header Range $origin_range;\n"
        + "      proxy_cache_valid 200 206 1h;\n"
        + "      proxy_cache_lock on;\n"
        + "      proxy_cache_lock_timeout 60s;\n"
        + "      proxy_http_version 1.1;\n"
        + "      proxy_set_header Connection \"\";\n"
        + "      proxy_pass http://origin;\n"
        + "    }\n"
        + "  }\n"
        + "}\n";
  }

  private void awaitPort() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("Cannot start nginx (exit " + process.exitValue() + "): " + log());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(50);
      }
    }
    close();
    throw new IOException("Cannot start nginx: port " + port + " not open after 15 s: " + log());
  }

  String log() {
    StringBuilder out = new StringBuilder();
    for (String name : List.of("stdout.log", "error.log")) {
      try {
        Path p = dir.resolve(name);
        if (Files.exists(p)) {
          out.append(name).append(": ").append(Files.readString(p).strip()).append('\n');
        }
      } catch (IOException e) {
        out.append(name).append(": unreadable\n");
      }
    }
    return out.toString();
  }

  /** Stops nginx (SIGTERM: fast shutdown), forcibly after 10 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
