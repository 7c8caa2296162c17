using Microsoft.Extensions.Options;

namespace FunctionApp.Envelopes;

/// <summary>Validates <see cref="EnvelopeOptions"/> from its attributes (source-generated); each error names its setting.</summary>
[OptionsValidator]
internal sealed partial class EnvelopeOptionsValidator : IValidateOptions<EnvelopeOptions>
{
}
