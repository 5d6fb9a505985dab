package io.verglas.access;

import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * What an authenticated caller may do: everything (a stack's static token) or what its
 * {@link TableScope} grants (a scoped token). Servers check every table a call names through
 * it, before they read or write anything.
 */
public final class Access {
  /** The access of a static token: every table, and table administration. */
  public static final Access FULL = new Access(null);

  private final TableScope scope;

  private Access(TableScope scope) {
    this.scope = scope;
  }

  public static Access scoped(TableScope scope) {
    return new Access(java.util.Objects.requireNonNull(scope, "scope"));
  }

  /** The scope, or empty for full access. */
  public Optional<TableScope> scope() {
    return Optional.ofNullable(scope);
  }

  public boolean mayRead(TableIdentifier table) {
    return scope == null || scope.mayRead(table);
  }

  /** @throws AccessDeniedException if the scope does not grant reading {@code table} */
  public void checkRead(TableIdentifier table) {
    if (scope != null) {
      scope.checkRead(table);
    }
  }

  /** @throws AccessDeniedException if the scope does not grant writing {@code table} */
  public void checkWrite(TableIdentifier table) {
    if (scope != null) {
      scope.checkWrite(table);
    }
  }

  /**
   * @param action what is asked, e.g. {@code create-table}
   * @throws AccessDeniedException for a scoped caller: only the stack's tokens administer tables
   */
  public void checkAdmin(String action) {
    if (scope != null) {
      throw new AccessDeniedException("Cannot " + action + ": token for " + scope.subject()
          + " is scoped to tables; only the stack's token may " + action);
    }
  }

  @Override
  public String toString() {
    return scope == null ? "Access[full]" : "Access[" + scope.subject() + "]";
  }
}
