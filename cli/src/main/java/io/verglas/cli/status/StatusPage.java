package io.verglas.cli.status;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The admin port's {@code GET /}: one self-contained HTML page (no external assets, so it works
 * offline) that polls {@code GET /status} and {@code GET /heat} with the admin token, given as
 * {@code #token=...} in its address or typed in, and kept for the browser session only.
 */
public final class StatusPage {
  private static final byte[] HTML = load();

  private StatusPage() {}

  public static byte[] html() {
    return HTML.clone();
  }

  private static byte[] load() {
    try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
      if (in == null) {
        throw new IllegalStateException("Cannot find the status page in the launcher's jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the status page", e);
    }
  }
}
