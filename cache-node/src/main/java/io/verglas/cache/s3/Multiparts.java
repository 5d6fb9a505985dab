package io.verglas.cache.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.Origin;
import io.verglas.cache.origin.PartInfo;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.w3c.dom.Element;

/**
 * CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload, ListParts,
 * ListMultipartUploads (without {@code delimiter}, which answers NotImplemented). A repeated
 * Complete of an upload this node completed answers the first result ({@link CompletedUploads});
 * a part number listed twice in a row in Complete counts once, with its last ETag.
 * Part checksums in the Complete document are not re-checked: each part's checksum was verified
 * when it was uploaded.
 */
final class Multiparts {
  private static final int MAX_PARTS = 10_000;

  private final Origin origin;
  private final WriteGate gate;
  private final PartCopies copies;
  private final CompletedUploads completed = new CompletedUploads();

  Multiparts(Origin origin, WriteGate gate, PartCopies copies) {
    this.origin = origin;
    this.gate = gate;
    this.copies = copies;
  }

  CompletableFuture<S3Response> create(S3Request r) {
    S3Headers.rejectUnsupportedWrite(r);
    return origin.createMultipartUpload(r.bucket, r.key, S3Headers.writeOptions(r))
        .thenApply(uploadId -> S3Response.xml(S3Xml.document("InitiateMultipartUploadResult")
            .element("Bucket", r.bucket)
            .element("Key", r.key)
            .element("UploadId", uploadId)));
  }

  CompletableFuture<S3Response> uploadPart(Exchange ex) {
    S3Request r = ex.request();
    int partNumber = partNumber(r);
    completed.requireNotCompleted(r.param("uploadId"));
    return origin.uploadPart(upload(r), partNumber, ex.body()).thenApply(etag -> {
      S3Response response = S3Response.ok().header(HttpHeaderNames.ETAG, etag);
      ex.checksums().responseHeaders().forEach(response::header);
      return response;
    });
  }

  CompletableFuture<S3Response> uploadPartCopy(S3Request r) {
    int partNumber = partNumber(r);
    completed.requireNotCompleted(r.param("uploadId"));
    return copies.copy(r, upload(r), partNumber);
  }

  CompletableFuture<S3Response> complete(Exchange ex) {
    S3Request r = ex.request();
    Element root = S3Xml.parse(ex.body().bytes());
    if (!S3Xml.name(root).equals("CompleteMultipartUpload")) {
      throw malformed("the root element must be CompleteMultipartUpload");
    }
    List<CompletedPart> parts = new ArrayList<>();
    for (Element part : S3Xml.children(root, "Part")) {
      String number = S3Xml.childText(part, "PartNumber");
      String etag = S3Xml.childText(part, "ETag");
      if (number == null || etag == null) {
        throw malformed("every Part needs PartNumber and ETag");
      }
      try {
        parts.add(new CompletedPart(Integer.parseInt(number.trim()), etag.trim()));
      } catch (NumberFormatException e) {
        throw malformed("PartNumber is not a number: " + number);
      }
    }
    if (parts.isEmpty() || parts.size() > MAX_PARTS) {
      throw malformed("You must specify at least one part (and at most " + MAX_PARTS + ")");
    }
    List<CompletedPart> completing = CompletedUploads.lastOfEachNumber(parts);
    CompletedUploads.checkOrder(completing);
    MultipartUpload upload = upload(r);
    String repeated = completed.repeated(r.bucket, r.key, upload.uploadId(), completing);
    if (repeated != null) {
      return CompletableFuture.completedFuture(completeResult(r, repeated));
    }
    return gate.write(r.bucket, r.key, WritePreconditions.ofWrite(r),
            condition -> origin.completeMultipartUpload(upload, completing, condition))
        .thenApply(result -> {
          completed.remember(r.bucket, r.key, upload.uploadId(), completing, result.etag());
          return completeResult(r, result.etag());
        });
  }

  private static S3Response completeResult(S3Request r, String etag) {
    return S3Response.xml(S3Xml.document("CompleteMultipartUploadResult")
        .element("Location", "/" + r.bucket + "/" + UriEncoding.encode(r.key, true))
        .element("Bucket", r.bucket)
        .element("Key", r.key)
        .element("ETag", etag));
  }

  CompletableFuture<S3Response> abort(S3Request r) {
    completed.requireNotCompleted(r.param("uploadId"));
    return origin.abortMultipartUpload(upload(r)).thenApply(v -> S3Response.noContent());
  }

  CompletableFuture<S3Response> listParts(S3Request r) {
    int marker = r.param("part-number-marker") == null
        ? 0 : Listings.intParam(r, "part-number-marker", 0, MAX_PARTS);
    int maxParts = r.param("max-parts") == null
        ? 1000 : Listings.intParam(r, "max-parts", 0, 1000);
    completed.requireNotCompleted(r.param("uploadId"));
    return origin.listParts(upload(r), marker, maxParts).thenApply(listing -> {
      S3Xml xml = S3Xml.document("ListPartsResult")
          .element("Bucket", r.bucket)
          .element("Key", r.key)
          .element("UploadId", r.param("uploadId"))
          .element("PartNumberMarker", marker)
          .element("NextPartNumberMarker", listing.nextPartNumberMarker())
          .element("MaxParts", maxParts)
          .element("IsTruncated", listing.truncated())
          .element("StorageClass", "STANDARD");
      xml.start("Initiator").element("ID", Listings.OWNER_ID)
          .element("DisplayName", Listings.OWNER_ID).end();
      Listings.owner(xml);
      for (PartInfo p : listing.parts()) {
        xml.start("Part")
            .element("PartNumber", p.partNumber())
            .element("LastModified", S3Dates.xml(p.lastModified()))
            .element("ETag", p.etag())
            .element("Size", p.size())
            .end();
      }
      return S3Response.xml(xml);
    });
  }

  CompletableFuture<S3Response> listUploads(S3Request r) {
    if (r.param("delimiter") != null && !r.param("delimiter").isEmpty()) {
      throw S3Exception.notImplemented("ListMultipartUploads with a delimiter");
    }
    boolean url = Listings.encodingType(r);
    int maxUploads = r.param("max-uploads") == null
        ? UploadListRequest.MAX_UPLOADS : Listings.intParam(r, "max-uploads", 0, Integer.MAX_VALUE);
    UploadListRequest request = new UploadListRequest(r.bucket, r.param("prefix"), r.param("key-marker"),
        r.param("upload-id-marker"), Math.min(maxUploads, UploadListRequest.MAX_UPLOADS));
    return origin.listUploads(request).thenApply(listing -> {
      S3Xml xml = S3Xml.document("ListMultipartUploadsResult")
          .element("Bucket", r.bucket)
          .element("KeyMarker", Listings.enc(request.keyMarker() == null ? "" : request.keyMarker(), url))
          .element("UploadIdMarker", request.uploadIdMarker() == null ? "" : request.uploadIdMarker())
          .element("NextKeyMarker", Listings.enc(listing.nextKeyMarker(), url))
          .element("NextUploadIdMarker", listing.nextUploadIdMarker())
          .element("Prefix", Listings.enc(request.prefix(), url))
          .element("MaxUploads", request.maxUploads())
          .element("IsTruncated", listing.truncated())
          .element("EncodingType", url ? "url" : null);
      for (UploadListing.Upload u : listing.uploads()) {
        xml.start("Upload")
            .element("Key", Listings.enc(u.key(), url))
            .element("UploadId", u.uploadId());
        xml.start("Initiator").element("ID", Listings.OWNER_ID)
            .element("DisplayName", Listings.OWNER_ID).end();
        Listings.owner(xml);
        xml.element("StorageClass", "STANDARD")
            .element("Initiated", S3Dates.xml(u.initiated()))
            .end();
      }
      return S3Response.xml(xml);
    });
  }

  private static MultipartUpload upload(S3Request r) {
    String uploadId = r.param("uploadId");
    if (uploadId == null || uploadId.isEmpty()) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "uploadId is required");
    }
    return new MultipartUpload(r.bucket, r.key, uploadId);
  }

  private static int partNumber(S3Request r) {
    if (r.param("partNumber") == null || r.param("uploadId") == null) {
      throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
          "UploadPart needs both partNumber and uploadId");
    }
    return Listings.intParam(r, "partNumber", 1, MAX_PARTS);
  }

  private static S3Exception malformed(String why) {
    return new S3Exception(S3ErrorCode.MALFORMED_XML,
        "The XML you provided was not well-formed or did not validate against our published"
            + " schema: " + why);
  }
}
