package io.verglas.cli.local;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Writes a file that holds secrets so that no other user can read it at any moment: the
 * content goes into a temporary sibling created owner-only ({@code rw-------}) before a byte is
 * written, which then replaces the file by an atomic rename. The rename also replaces a file of
 * an earlier build that was readable by others, since the new inode keeps the temporary's mode.
 * On a file system without POSIX permissions the platform's defaults apply.
 */
final class OwnerOnlyFile {
  private static final Set<PosixFilePermission> OWNER_READ_WRITE =
      PosixFilePermissions.fromString("rw-------");

  private OwnerOnlyFile() {
  }

  static void write(Path file, String content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    // A temporary left by a crash may have any mode, or be a link planted by someone else:
    // remove it, then create ours exclusively.
    Files.deleteIfExists(tmp);
    createOwnerOnly(tmp);
    Files.writeString(tmp, content);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static void createOwnerOnly(Path path) throws IOException {
    FileAttribute<Set<PosixFilePermission>> ownerOnly =
        PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE);
    try {
      Files.createFile(path, ownerOnly);
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(path);
    }
  }
}
