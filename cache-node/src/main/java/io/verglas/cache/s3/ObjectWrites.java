package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.verglas.cache.origin.CopyRequest;
import io.verglas.cache.origin.ObjectMeta;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.w3c.dom.Element;

/**
 * PutObject, CopyObject, DeleteObject and DeleteObjects: write-through to the origin, each write
 * through the {@link WriteGate} (key order, conditions, metadata cache invalidation). Each key of
 * a DeleteObjects is checked against a session's grants ({@link SessionAuthorization#checkDelete})
 * and, when refused, reported in the result's {@code Error} list (AccessDenied) without touching it.
 */
final class ObjectWrites {
  private static final int MAX_DELETE_KEYS = 1000;

  private final Origin origin;
  private final WriteGate gate;

  ObjectWrites(Origin origin, WriteGate gate) {
    this.origin = origin;
    this.gate = gate;
  }

  CompletableFuture<S3Response> put(Exchange ex) {
    S3Request r = ex.request();
    S3Headers.rejectUnsupportedWrite(r);
    WriteOptions options = S3Headers.writeOptions(r);
    return gate.write(r.bucket, r.key, WritePreconditions.ofWrite(r),
            condition -> origin.put(r.bucket, r.key, ex.body(), options.withCondition(condition)))
        .thenApply(result -> {
          S3Response response = S3Response.ok().header(HttpHeaderNames.ETAG, result.etag());
          ex.checksums().responseHeaders().forEach(response::header);
          return response;
        });
  }

  CompletableFuture<S3Response> copy(Exchange ex) {
    S3Request r = ex.request();
    S3Headers.rejectUnsupportedWrite(r);
    CopySource source = CopySource.parse(r.header("x-amz-copy-source"));
    String directive = r.header("x-amz-metadata-directive");
    boolean replace;
    if (directive == null || directive.equals("COPY")) {
      replace = false;
    } else if (directive.equals("REPLACE")) {
      replace = true;
    } else {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "Unknown metadata directive: " + directive + " (COPY or REPLACE)");
    }
    if (!replace && source.bucket().equals(r.bucket) && source.key().equals(r.key)
        && source.versionId() == null) {
      throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
          "This copy request is illegal because it is trying to copy an object to itself without"
              + " changing the object's metadata, storage class, website redirect location or"
              + " encryption attributes.");
    }
    WriteOptions replacement = replace ? S3Headers.writeOptions(r) : null;
    WritePreconditions targetConditions = WritePreconditions.ofWrite(r);
    boolean sourceConditions = r.header("x-amz-copy-source-if-match") != null
        || r.header("x-amz-copy-source-if-none-match") != null
        || r.header("x-amz-copy-source-if-modified-since") != null
        || r.header("x-amz-copy-source-if-unmodified-since") != null;
    CompletableFuture<String> expectedSourceEtag = CompletableFuture.completedFuture(null);
    if (sourceConditions) {
      CompletableFuture<ObjectMeta> head = source.versionId() == null
          ? origin.head(source.bucket(), source.key())
          : origin.headVersion(source.bucket(), source.key(), source.versionId());
      expectedSourceEtag = head.thenApply(meta -> {
        S3Headers.evaluateCopySource(r, meta);
        return meta.etag();
      });
    }
    return expectedSourceEtag
        .thenCompose(etag -> gate.write(r.bucket, r.key, targetConditions,
            condition -> origin.copy(new CopyRequest(source.bucket(), source.key(),
                source.versionId(), etag, r.bucket, r.key, replacement, condition))))
        .thenApply(result -> {
          S3Response response = S3Response.xml(S3Xml.document("CopyObjectResult")
              .element("LastModified", S3Dates.xml(result.lastModified()))
              .element("ETag", result.etag()));
          if (source.versionId() != null) {
            response.header("x-amz-copy-source-version-id", source.versionId());
          }
          return response;
        });
  }

  CompletableFuture<S3Response> delete(Exchange ex) {
    S3Request r = ex.request();
    String versionId = r.param("versionId");
    CompletableFuture<Void> deleted = versionId != null
        ? gate.write(r.bucket, r.key, WritePreconditions.NONE,
            condition -> origin.deleteVersion(r.bucket, r.key, versionId))
        : gate.write(r.bucket, r.key, WritePreconditions.ofDelete(r),
            condition -> origin.delete(r.bucket, r.key, condition));
    return deleted
        .thenApply(v -> {
          S3Response response = S3Response.noContent();
          if (versionId != null) {
            response.header("x-amz-version-id", versionId);
          }
          return response;
        });
  }

  private record Target(String key, String versionId, WritePreconditions conditions) {}

  private record Outcome(Target target, Throwable error) {}

  CompletableFuture<S3Response> deleteObjects(Exchange ex) {
    S3Request r = ex.request();
    Element root = S3Xml.parse(ex.body().bytes());
    if (!S3Xml.name(root).equals("Delete")) {
      throw malformed("the root element must be Delete");
    }
    boolean quiet = "true".equalsIgnoreCase(trim(S3Xml.childText(root, "Quiet")));
    List<Target> targets = new ArrayList<>();
    for (Element object : S3Xml.children(root, "Object")) {
      String key = S3Xml.childText(object, "Key");
      if (key == null || key.isEmpty()) {
        throw malformed("every Object needs a Key");
      }
      targets.add(new Target(key, S3Xml.childText(object, "VersionId"), WritePreconditions.forDelete(
          S3Xml.childText(object, "ETag"), S3Xml.childText(object, "LastModifiedTime"),
          S3Xml.childText(object, "Size"))));
    }
    if (targets.isEmpty() || targets.size() > MAX_DELETE_KEYS) {
      throw malformed("DeleteObjects takes 1 to " + MAX_DELETE_KEYS + " keys, not " + targets.size());
    }
    return origin.bucketExists(r.bucket).thenCompose(exists -> {
      if (!exists) {
        throw new S3Exception(S3ErrorCode.NO_SUCH_BUCKET,
            "The specified bucket does not exist: " + r.bucket);
      }
      List<CompletableFuture<Outcome>> outcomes = new ArrayList<>();
      for (Target t : targets) {
        CompletableFuture<Void> deleted;
        try {
          SessionAuthorization.checkDelete(ex.auth(), r.bucket, t.key());
          deleted = gate.write(r.bucket, t.key(), t.conditions(), condition -> t.versionId() != null
              ? origin.deleteVersion(r.bucket, t.key(), t.versionId())
              : origin.delete(r.bucket, t.key(), condition));
        } catch (RuntimeException e) {
          deleted = CompletableFuture.failedFuture(e);
        }
        outcomes.add(deleted.handle((v, error) -> new Outcome(t, error)));
      }
      return CompletableFuture.allOf(outcomes.toArray(new CompletableFuture<?>[0]))
          .thenApply(v -> result(outcomes, quiet, r.requestId));
    });
  }

  private static S3Response result(List<CompletableFuture<Outcome>> outcomes, boolean quiet,
      String requestId) {
    S3Xml xml = S3Xml.document("DeleteResult");
    for (CompletableFuture<Outcome> f : outcomes) {
      Outcome o = f.join();
      if (o.error() == null) {
        if (!quiet) {
          xml.start("Deleted").element("Key", o.target().key())
              .element("VersionId", o.target().versionId()).end();
        }
      } else {
        S3Exception e = S3Errors.toS3(o.error(), requestId);
        xml.start("Error").element("Key", o.target().key())
            .element("VersionId", o.target().versionId())
            .element("Code", e.code().code()).element("Message", e.getMessage()).end();
      }
    }
    return S3Response.xml(xml);
  }

  private static String trim(String s) {
    return s == null ? null : s.trim();
  }

  private static S3Exception malformed(String why) {
    return new S3Exception(S3ErrorCode.MALFORMED_XML,
        "The XML you provided was not well-formed or did not validate against our published"
            + " schema: " + why);
  }

  /** The parsed x-amz-copy-source header: {@code [/]bucket/key[?versionId=v]}, URL-encoded. */
  record CopySource(String bucket, String key, String versionId) {
    static CopySource parse(String header) {
      String value = header.trim();
      String versionId = null;
      int q = value.indexOf('?');
      if (q >= 0) {
        String query = value.substring(q + 1);
        value = value.substring(0, q);
        if (query.startsWith("versionId=")) {
          versionId = decode(query.substring("versionId=".length()), header);
        } else {
          throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
              "Unsupported query in x-amz-copy-source: " + header);
        }
      }
      String path = decode(value, header);
      if (path.startsWith("/")) {
        path = path.substring(1);
      }
      int slash = path.indexOf('/');
      if (slash <= 0 || slash == path.length() - 1) {
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
            "Copy Source must mention the source bucket and key: sourcebucket/sourcekey, not "
                + header);
      }
      return new CopySource(path.substring(0, slash), S3Request.checkKey(path.substring(slash + 1)), versionId);
    }

    private static String decode(String raw, String header) {
      try {
        return UriEncoding.decode(raw);
      } catch (IllegalArgumentException e) {
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
            "Invalid x-amz-copy-source (" + e.getMessage() + "): " + header);
      }
    }
  }
}
