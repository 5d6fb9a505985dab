package io.verglas.cache.origin.azure;

import com.azure.core.http.rest.PagedFlux;
import com.azure.core.http.rest.PagedResponse;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.ListBlobsOptions;
import io.verglas.cache.origin.ListPage;
import io.verglas.cache.origin.ListRequest;
import io.verglas.cache.origin.ListedObject;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.OriginException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * ListObjects on List Blobs. One S3 page is one Azure page of at most {@code maxKeys} entries,
 * less the reserved {@code .verglas/} names and anything not after {@code startAfter} (Azure's
 * {@code startFrom} is inclusive). The continuation token carries Azure's marker and the
 * {@code startAfter} bound, so later pages keep honouring it.
 */
final class AzureListing {
  private AzureListing() {}

  /** Our continuation token: Azure's marker plus the startAfter bound (may be null). */
  record Token(String marker, String startAfter) {
    String encode() {
      Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
      return b64.encodeToString(marker.getBytes(StandardCharsets.UTF_8)) + "."
          + (startAfter == null ? "" : b64.encodeToString(startAfter.getBytes(StandardCharsets.UTF_8)));
    }

    static Token decode(String token) {
      int dot = token.indexOf('.');
      try {
        if (dot <= 0) {
          throw new IllegalArgumentException("no separator");
        }
        Base64.Decoder b64 = Base64.getUrlDecoder();
        String marker = new String(b64.decode(token.substring(0, dot)), StandardCharsets.UTF_8);
        String after = dot == token.length() - 1 ? null
            : new String(b64.decode(token.substring(dot + 1)), StandardCharsets.UTF_8);
        return new Token(marker, after);
      } catch (IllegalArgumentException e) {
        throw new OriginException(Reason.INVALID_ARGUMENT, "The continuation token provided is incorrect: " + token);
      }
    }
  }

  static Mono<ListPage> list(BlobContainerAsyncClient container, ListRequest request) {
    if (request.maxKeys() == 0) {
      return Mono.just(new ListPage(List.of(), List.of(), false, null));
    }
    Token token = request.continuationToken() == null ? null : Token.decode(request.continuationToken());
    String startAfter = token != null ? token.startAfter() : request.startAfter();
    ListBlobsOptions options = new ListBlobsOptions()
        .setPrefix(request.prefix().isEmpty() ? null : request.prefix())
        .setMaxResultsPerPage(request.maxKeys());
    if (token == null && startAfter != null) {
      options.setStartFrom(startAfter);
    }
    PagedFlux<BlobItem> blobs = request.delimiter() == null
        ? container.listBlobs(options)
        : container.listBlobsByHierarchy(request.delimiter(), options);
    return (token == null ? blobs.byPage() : blobs.byPage(token.marker())).next()
        .map(page -> toPage(page, startAfter));
  }

  private static ListPage toPage(PagedResponse<BlobItem> page, String startAfter) {
    List<ListedObject> objects = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    for (BlobItem item : page.getValue()) {
      String name = item.getName();
      if (name.startsWith(AzureOrigin.RESERVED_PREFIX) || !after(name, startAfter)) {
        continue;
      }
      if (Boolean.TRUE.equals(item.isPrefix())) {
        prefixes.add(name);
      } else {
        objects.add(new ListedObject(name, item.getProperties().getContentLength(),
            AzureMetadata.instant(item.getProperties().getLastModified()),
            AzureErrors.etag(item.getProperties().getETag())));
      }
    }
    String next = page.getContinuationToken();
    boolean truncated = next != null && !next.isEmpty();
    return new ListPage(objects, prefixes, truncated, truncated ? new Token(next, startAfter).encode() : null);
  }

  private static boolean after(String name, String startAfter) {
    return startAfter == null || Arrays.compareUnsigned(name.getBytes(StandardCharsets.UTF_8),
        startAfter.getBytes(StandardCharsets.UTF_8)) > 0;
  }
}
