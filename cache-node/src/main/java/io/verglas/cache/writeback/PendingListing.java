package io.verglas.cache.writeback;

import io.verglas.cache.origin.KeyOrder;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.ListedObject;
import io.verglas.cache.writeback.journal.JournalRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A listing page with the buffered changes laid over it: a buffered write appears as an object
 * (or under its common prefix), a buffered delete hides the origin's object.
 *
 * <p>Design. A page of the origin covers the keys after its lower bound up to its last entry
 * (to the end when it is the last page); the buffered changes of keys in that range are merged
 * into it, so over all pages each key appears once. The lower bound of the next page travels in
 * the continuation token, wrapped around the origin's own: {@code wb:BASE64URL(last).ORIGIN}.
 * Limits: a page may hold more than {@code max-keys} entries (by the buffered writes in its
 * range), and a common prefix whose only keys are buffered deletes still appears.
 */
final class PendingListing {
  private static final String TOKEN = "wb:";

  private PendingListing() {}

  /** The request to send to the origin: our token unwrapped. */
  static ListRequest originRequest(ListRequest request) {
    return new ListRequest(request.bucket(), request.prefix(), request.delimiter(), request.startAfter(),
        originToken(request.continuationToken()), request.maxKeys());
  }

  /** The page's merge with the buffered changes of its bucket. */
  static ListPage merge(ListRequest request, ListPage page, List<JournalRecord.Pending> pending) {
    String from = request.continuationToken() != null ? lowerBound(request.continuationToken()) : request.startAfter();
    String to = page.truncated() ? page.lastEntry() : null;
    Map<String, ListedObject> objects = new TreeMap<>(KeyOrder.COMPARATOR);
    page.objects().forEach(o -> objects.put(o.key(), o));
    TreeSet<String> prefixes = new TreeSet<>(KeyOrder.COMPARATOR);
    prefixes.addAll(page.commonPrefixes());
    for (JournalRecord.Pending change : pending) {
      String key = change.identity().key();
      if (!key.startsWith(request.prefix()) || !after(key, from) || (to != null && KeyOrder.compare(key, to) > 0)) {
        continue;
      }
      String rolled = rollUp(key, request);
      if (change instanceof JournalRecord.Staged staged) {
        if (rolled != null && after(rolled, from)) {
          prefixes.add(rolled);
        } else if (rolled == null) {
          objects.put(key, new ListedObject(key, staged.bodyLength(), Instant.ofEpochMilli(staged.stagedAtMillis()),
              WriteBackMetadata.etag(staged)));
        }
      } else {
        objects.remove(key);
      }
    }
    return new ListPage(new ArrayList<>(objects.values()), new ArrayList<>(prefixes), page.truncated(),
        page.truncated() ? token(to, page.nextContinuationToken()) : null);
  }

  private static boolean after(String key, String from) {
    return from == null || KeyOrder.compare(key, from) > 0;
  }

  private static String rollUp(String key, ListRequest request) {
    if (request.delimiter() == null) {
      return null;
    }
    int at = key.indexOf(request.delimiter(), request.prefix().length());
    return at < 0 ? null : key.substring(0, at + request.delimiter().length());
  }

  private static String token(String last, String originToken) {
    return TOKEN + Base64.getUrlEncoder().withoutPadding().encodeToString(last.getBytes(StandardCharsets.UTF_8))
        + "." + originToken;
  }

  private static String originToken(String token) {
    if (token == null) {
      return null;
    }
    return token.substring(dot(token) + 1);
  }

  private static String lowerBound(String token) {
    return new String(Base64.getUrlDecoder().decode(token.substring(TOKEN.length(), dot(token))),
        StandardCharsets.UTF_8);
  }

  private static int dot(String token) {
    int dot = token.indexOf('.');
    if (!token.startsWith(TOKEN) || dot < 0) {
      throw new IllegalArgumentException("Invalid continuation token: " + token + " (not one this node gave)");
    }
    return dot;
  }
}
