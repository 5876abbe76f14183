package dev.bothy.api.http;

import dev.bothy.api.Scope;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The scope a resource method needs; {@link TokenFilter} checks it. A method without it is public.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface RequiresScope {
  /**
   * The scope.
   *
   * @return the scope
   */
  Scope value();
}
