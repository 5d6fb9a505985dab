package io.verglas.cache.origin.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.models.Block;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobListDetails;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlockListType;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.verglas.cache.origin.CompletedPart;
import io.verglas.cache.origin.ETags;
import io.verglas.cache.origin.MultipartUpload;
import io.verglas.cache.origin.ObjectBody;
import io.verglas.cache.origin.OriginException;
import io.verglas.cache.origin.OriginException.Reason;
import io.verglas.cache.origin.PartInfo;
import io.verglas.cache.origin.PartListing;
import io.verglas.cache.origin.PutResult;
import io.verglas.cache.origin.UploadListRequest;
import io.verglas.cache.origin.UploadListing;
import io.verglas.cache.origin.WriteCondition;
import io.verglas.cache.origin.WriteOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * S3 multipart uploads on block blobs. Parts are staged blocks of the target blob; a part's
 * block id is {@code base64(upload id (16 bytes) | part number (2 bytes) | MD5 of the part)}, so
 * the block list Azure keeps names, for every staged part, its upload, number and ETag, and
 * CompleteMultipartUpload picks exactly the part versions the client names. What the blocks
 * cannot hold (the target key and the metadata given at CreateMultipartUpload) lives in a
 * marker blob {@code .verglas/uploads/<upload id>} in the same container, next to the staged
 * blocks: all of an upload's state is in the store, none in the node, so uploads survive a node
 * restart and can be continued through another node.
 *
 * <p>Azure keeps one set of uncommitted blocks per blob: completing one upload of a key discards
 * the parts of any other upload of that key still in progress (S3 keeps them apart), and
 * uncommitted blocks of an aborted upload stay until Azure collects them (after a week).
 */
final class AzureMultipart {
  static final String MARKER_PREFIX = AzureOrigin.RESERVED_PREFIX + "uploads/";
  static final String KEY_ENTRY = AzureMetadata.INTERNAL_PREFIX + "key";
  static final long MIN_PART_SIZE = 5L * 1024 * 1024;
  private static final int MAX_PART_NUMBER = 10_000;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Function<String, BlobContainerAsyncClient> containers;

  AzureMultipart(Function<String, BlobContainerAsyncClient> containers) {
    this.containers = containers;
  }

  /** What CreateMultipartUpload was given, kept as the marker blob's content. */
  record Marker(String key, String contentType, Map<String, String> userMetadata,
      Map<String, String> contentHeaders) {
    WriteOptions options(WriteCondition condition) {
      return new WriteOptions(contentType, userMetadata, contentHeaders, condition);
    }
  }

  Mono<String> create(String bucket, String key, WriteOptions options) {
    byte[] id = new byte[16];
    RANDOM.nextBytes(id);
    String uploadId = HexFormat.of().formatHex(id);
    byte[] json = toJson(new Marker(key, options.contentType(), options.userMetadata(), options.contentHeaders()));
    BlockBlobSimpleUploadOptions upload = new BlockBlobSimpleUploadOptions(BinaryData.fromBytes(json))
        .setMetadata(Map.of(KEY_ENTRY, encodeKey(key)))
        .setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*"));
    return marker(bucket, uploadId).getBlockBlobAsyncClient().uploadWithResponse(upload).thenReturn(uploadId);
  }

  Mono<String> uploadPart(MultipartUpload upload, int partNumber, ObjectBody body) {
    checkPartNumber(partNumber);
    byte[] uploadId = uploadIdBytes(upload);
    return requireUpload(upload)
        .then(AzureBodies.md5(body))
        .flatMap(md5 -> target(upload).getBlockBlobAsyncClient()
            .stageBlockWithResponse(blockId(uploadId, partNumber, md5), AzureBodies.flux(body), body.length(),
                md5, null)
            .thenReturn(ETags.ofMd5(md5)));
  }

  Mono<PutResult> complete(MultipartUpload upload, List<CompletedPart> parts, WriteCondition condition) {
    if (parts.isEmpty()) {
      return Mono.error(new OriginException(Reason.INVALID_ARGUMENT,
          "Cannot complete upload " + upload.uploadId() + ": no parts were named"));
    }
    for (int i = 1; i < parts.size(); i++) {
      if (parts.get(i).partNumber() <= parts.get(i - 1).partNumber()) {
        return Mono.error(new OriginException(Reason.INVALID_PART_ORDER,
            "The list of parts was not in ascending order: part " + parts.get(i).partNumber()
                + " after part " + parts.get(i - 1).partNumber()));
      }
    }
    byte[] uploadId = uploadIdBytes(upload);
    return loadMarker(upload).zipWith(stagedBlocks(upload)).flatMap(loaded -> {
      List<String> blockIds = chosenBlocks(uploadId, parts, loaded.getT2());
      WriteOptions options = loaded.getT1().options(condition);
      BlockBlobCommitBlockListOptions commit = new BlockBlobCommitBlockListOptions(blockIds)
          .setHeaders(AzureMetadata.headers(options))
          .setMetadata(AzureMetadata.toBlob(options))
          .setRequestConditions(AzureOrigin.conditions(condition));
      return target(upload).getBlockBlobAsyncClient().commitBlockListWithResponse(commit)
          .map(r -> new PutResult(AzureErrors.etag(r.getValue().getETag()),
              AzureMetadata.instant(r.getValue().getLastModified())))
          .flatMap(result -> marker(upload.bucket(), upload.uploadId()).delete()
              .onErrorResume(e -> Mono.empty())   // a leftover marker only lists the upload
              .thenReturn(result));
    });
  }

  Mono<Void> abort(MultipartUpload upload) {
    uploadIdBytes(upload);
    return requireUpload(upload).then(marker(upload.bucket(), upload.uploadId()).delete())
        .onErrorMap(e -> AzureErrors.status(e) == 404 ? noSuchUpload(upload) : e);
  }

  Mono<PartListing> listParts(MultipartUpload upload, int partNumberMarker, int maxParts) {
    byte[] uploadId = uploadIdBytes(upload);
    return requireUpload(upload).then(stagedBlocks(upload)).map(blocks -> {
      TreeMap<Integer, PartInfo> parts = new TreeMap<>();
      for (Block block : blocks.values()) {
        StagedPart part = StagedPart.parse(block.getName());
        if (part != null && Arrays.equals(part.uploadId(), uploadId) && part.number() > partNumberMarker) {
          // a part uploaded twice: Azure lists uncommitted blocks in upload order, the last wins
          parts.put(part.number(), new PartInfo(part.number(), ETags.ofMd5(part.md5()), block.getSizeLong(),
              Instant.EPOCH));
        }
      }
      List<PartInfo> page = new ArrayList<>(parts.values()).subList(0, Math.min(parts.size(), maxParts));
      boolean truncated = parts.size() > page.size();
      return new PartListing(page, truncated, page.isEmpty() ? 0 : page.get(page.size() - 1).partNumber());
    });
  }

  Mono<UploadListing> listUploads(UploadListRequest request) {
    ListBlobsOptions options = new ListBlobsOptions().setPrefix(MARKER_PREFIX)
        .setDetails(new BlobListDetails().setRetrieveMetadata(true));
    return containers.apply(request.bucket()).listBlobs(options).collectList().map(items -> {
      List<UploadListing.Upload> uploads = new ArrayList<>();
      for (BlobItem item : items) {
        String key = item.getMetadata() == null ? null : metadataEntry(item.getMetadata(), KEY_ENTRY);
        if (key != null) {
          uploads.add(new UploadListing.Upload(decodeKey(key), item.getName().substring(MARKER_PREFIX.length()),
              AzureMetadata.instant(item.getProperties().getCreationTime())));
        }
      }
      uploads.sort(Comparator.<UploadListing.Upload, byte[]>comparing(
              u -> u.key().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned)
          .thenComparing(UploadListing.Upload::uploadId));
      return UploadListing.page(uploads, request);
    });
  }

  // ---- the parts of an upload

  /** The staged blocks of the target blob by block id (none if the blob has none). */
  private Mono<Map<String, Block>> stagedBlocks(MultipartUpload upload) {
    return target(upload).getBlockBlobAsyncClient().listBlocks(BlockListType.UNCOMMITTED)
        .map(list -> {
          Map<String, Block> byId = new java.util.LinkedHashMap<>();
          list.getUncommittedBlocks().forEach(b -> byId.put(b.getName(), b));
          return byId;
        })
        .onErrorResume(e -> AzureErrors.status(e) == 404 && !containerMissing(e), e -> Mono.just(Map.of()));
  }

  private static List<String> chosenBlocks(byte[] uploadId, List<CompletedPart> parts, Map<String, Block> staged) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      CompletedPart part = parts.get(i);
      checkPartNumber(part.partNumber());
      byte[] md5 = part.etag() == null ? null : md5Of(part.etag());
      Block block = md5 == null ? null : staged.get(blockId(uploadId, part.partNumber(), md5));
      if (block == null) {
        throw new OriginException(Reason.INVALID_PART,
            "One or more of the specified parts could not be found: part " + part.partNumber()
                + " with ETag " + part.etag() + " was not uploaded");
      }
      if (i < parts.size() - 1 && block.getSizeLong() < MIN_PART_SIZE) {
        throw new OriginException(Reason.ENTITY_TOO_SMALL,
            "Your proposed upload is smaller than the minimum allowed object size: part "
                + part.partNumber() + " has " + block.getSizeLong()
                + " bytes, every part but the last needs at least " + MIN_PART_SIZE);
      }
      ids.add(block.getName());
    }
    return ids;
  }

  /** One staged part, read back from its block id. */
  record StagedPart(byte[] uploadId, int number, byte[] md5) {
    static StagedPart parse(String blockId) {
      byte[] raw;
      try {
        raw = Base64.getDecoder().decode(blockId);
      } catch (IllegalArgumentException e) {
        return null;   // a block another tool staged
      }
      if (raw.length != 34) {
        return null;
      }
      int number = ((raw[16] & 0xff) << 8) | (raw[17] & 0xff);
      return new StagedPart(Arrays.copyOfRange(raw, 0, 16), number, Arrays.copyOfRange(raw, 18, 34));
    }
  }

  static String blockId(byte[] uploadId, int partNumber, byte[] md5) {
    byte[] raw = new byte[34];
    System.arraycopy(uploadId, 0, raw, 0, 16);
    raw[16] = (byte) (partNumber >>> 8);
    raw[17] = (byte) partNumber;
    System.arraycopy(md5, 0, raw, 18, 16);
    return Base64.getEncoder().encodeToString(raw);
  }

  private static byte[] md5Of(String etag) {
    String hex = ETags.bare(etag);
    if (hex.length() != 32) {
      return null;
    }
    try {
      return HexFormat.of().parseHex(hex);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static void checkPartNumber(int partNumber) {
    if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
      throw new OriginException(Reason.INVALID_ARGUMENT,
          "Part number must be an integer between 1 and " + MAX_PART_NUMBER + ", inclusive: " + partNumber);
    }
  }

  // ---- the marker

  private Mono<Void> requireUpload(MultipartUpload upload) {
    return marker(upload.bucket(), upload.uploadId()).getProperties()
        .onErrorMap(e -> AzureErrors.status(e) == 404 && !containerMissing(e), e -> noSuchUpload(upload))
        .flatMap(p -> upload.key().equals(decodeKeyOrNull(metadataEntry(p.getMetadata(), KEY_ENTRY)))
            ? Mono.<Void>empty() : Mono.error(noSuchUpload(upload)));
  }

  private Mono<Marker> loadMarker(MultipartUpload upload) {
    return marker(upload.bucket(), upload.uploadId()).downloadContent()
        .onErrorMap(e -> AzureErrors.status(e) == 404 && !containerMissing(e), e -> noSuchUpload(upload))
        .map(data -> fromJson(data.toBytes()))
        .flatMap(m -> upload.key().equals(m.key()) ? Mono.just(m) : Mono.error(noSuchUpload(upload)));
  }

  private BlobAsyncClient marker(String bucket, String uploadId) {
    return containers.apply(bucket).getBlobAsyncClient(MARKER_PREFIX + uploadId);
  }

  private BlobAsyncClient target(MultipartUpload upload) {
    return containers.apply(upload.bucket()).getBlobAsyncClient(upload.key());
  }

  private static boolean containerMissing(Throwable e) {
    return AzureErrors.unwrap(e) instanceof com.azure.storage.blob.models.BlobStorageException b
        && b.getErrorCode() != null && "ContainerNotFound".equals(b.getErrorCode().toString());
  }

  /** The upload id as 16 bytes; an id this origin never handed out is an unknown upload. */
  private static byte[] uploadIdBytes(MultipartUpload upload) {
    String id = upload.uploadId();
    if (id.length() == 32) {
      try {
        return HexFormat.of().parseHex(id);
      } catch (IllegalArgumentException ignored) {
        // not ours
      }
    }
    throw noSuchUpload(upload);
  }

  private static OriginException noSuchUpload(MultipartUpload upload) {
    return new OriginException(Reason.NO_SUCH_UPLOAD,
        "The specified upload does not exist: " + upload.uploadId() + " (key " + upload.key() + ")");
  }

  private static String metadataEntry(Map<String, String> metadata, String name) {
    if (metadata == null) {
      return null;
    }
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      if (e.getKey().equalsIgnoreCase(name)) {
        return e.getValue();
      }
    }
    return null;
  }

  private static String encodeKey(String key) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String decodeKey(String encoded) {
    return new String(Base64.getUrlDecoder().decode(encoded), StandardCharsets.UTF_8);
  }

  private static String decodeKeyOrNull(String encoded) {
    try {
      return encoded == null ? null : decodeKey(encoded);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static byte[] toJson(Marker marker) {
    try {
      return JSON.writeValueAsBytes(marker);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Marker fromJson(byte[] json) {
    try {
      return JSON.readValue(json, Marker.class);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read a multipart upload's marker: " + e.getMessage(), e);
    }
  }
}
