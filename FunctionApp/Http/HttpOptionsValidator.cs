using Microsoft.Extensions.Options;

namespace FunctionApp.Http;

/// <summary>Validates <see cref="HttpOptions"/> from its attributes (source-generated); each error names its setting.</summary>
[OptionsValidator]
internal sealed partial class HttpOptionsValidator : IValidateOptions<HttpOptions>
{
}
