namespace LocalIssuer;

/// <summary>
/// A refused request, answered as Entra's token endpoint answers one (<c>error</c>, <c>error_description</c>) plus the
/// field at fault, so a script can say which of its inputs was wrong.
/// </summary>
/// <param name="Status">The HTTP status (4xx).</param>
/// <param name="Error">The OAuth error code (<c>invalid_request</c>, <c>unsupported_grant_type</c>, <c>invalid_scope</c>, ...).</param>
/// <param name="Field">The form field, header or path segment at fault.</param>
/// <param name="Description">What is wrong with it.</param>
internal sealed record IssuerError(int Status, string Error, string Field, string Description)
{
    /// <summary>Writes the error as JSON with <see cref="Status"/>.</summary>
    /// <param name="context">The request.</param>
    public Task WriteAsync(HttpContext context)
    {
        context.Response.StatusCode = Status;
        context.Response.Headers.CacheControl = "no-store";
        return context.Response.WriteAsJsonAsync(new { error = Error, error_description = Description, field = Field });
    }
}
